"""Days named relative to today in Spanish, German or French, in the phrases CLDR gives for them ("pasado mañana",
"el próximo viernes", "vendredi prochain", "nächsten Freitag", "letzten Freitag"), read whole.

dateparser reads such a phrase word by word and knows its single words only: of "pasado mañana" it reads "mañana"
(tomorrow), of "vendredi prochain" the weekday alone, so focal.sensing.locale_reading left both unknown. CLDR's phrases
(focal/sensing/data/locale_words.json, derived by focal.sensing.locale_words_cldr) are read here whole, before the
library sees them, with the meaning the English reader gives the same phrase (focal.sensing.dates): the day after
tomorrow, the last / this / next Friday, from the turn's date (never the wall clock), and only answering the date's
own prompt. A phrase whose date is not clear stays unknown (UNREAD): "next Friday" said on a Tuesday may be this
week's or the next, in every language. A count of days or weeks from today in CLDR's phrase ("in zwei Wochen",
"dans 3 jours") names a day, which the library reads (its count words: "zwei", "deux"); a count it cannot read
("dentro de dos semanas": no Spanish count words in its data) is unknown, never a guess.

Only phrases of several words (after the language's function words in front: "el", "la") are read here: a single word
("mañana", "übermorgen", "après-demain") is the library's own, and "mañana" is also a morning ("por la mañana").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from functools import lru_cache

from focal.sensing.date_words import filler
from focal.sensing.dates import UNREAD, read_date
from focal.sensing.locale_words_cldr import shipped_table

_DAYS = {-2: "the day before yesterday", -1: "yesterday", 0: "today", 1: "tomorrow", 2: "the day after tomorrow"}
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_WHICH = {-1: "last", 0: "this", 1: "next"}


def _core(phrase: str, lang: str) -> list[str]:
    """The phrase's words without the function words in front ("el próximo viernes" → próximo viernes)."""
    words = phrase.split()
    while words and words[0] in filler(lang):
        words = words[1:]
    return words


@lru_cache(maxsize=8)
def _phrases(lang: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """(a CLDR phrase of several words, whole words, any case; the English phrase the date reader reads), longest
    first ("pasado mañana" before any shorter phrase inside it)."""
    table = shipped_table()[lang]["relative"]
    english = {p: _DAYS[o] for p, o in table["days"].items() if o in _DAYS}
    english |= {p: f"{_WHICH[o]} {_WEEKDAYS[d]}" for p, (d, o) in table["weekdays"].items() if o in _WHICH}
    out = []
    for phrase, said in english.items():
        core = _core(phrase, lang)
        if len(core) >= 2:
            out.append((re.compile(r"(?<![\w-])" + r"\s+".join(map(re.escape, core)) + r"(?![\w-])", re.IGNORECASE), said))
    return tuple(sorted(out, key=lambda p: -len(p[0].pattern)))


@lru_cache(maxsize=8)
def _counts(lang: str) -> re.Pattern[str]:
    """CLDR's phrases of a count of days or weeks from today, the count one word or figure."""
    phrases = shipped_table()[lang]["relative"]["counts"]
    alternatives = [r"\s+".join(r"[^\W_]+" if w == "{0}" else re.escape(w) for w in p.split())
                    for p in sorted(phrases, key=len, reverse=True)]
    return re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?![\w-])", re.IGNORECASE)


def read_relative_days(text: str, lang: str, today: date | None, answering: bool,
                       library: Callable[[str], date | None]) -> str:
    """`text` with each CLDR phrase of a day relative to today written as its ISO date, or UNREAD when the date is
    not clear; unchanged without the turn's date or outside an answer to the date's prompt (as in English).
    `library`: the library's reading of a phrase from the turn's date (a count of days or weeks), or None."""
    if today is None or not answering:
        return text
    for pattern, said in _phrases(lang):
        if pattern.search(text):
            text = pattern.sub(read_date(said, today, answering=True, strict=True) or UNREAD, text)

    def count(m: re.Match[str]) -> str:
        day = library(m.group(0))
        return day.isoformat() if day is not None else UNREAD

    return _counts(lang).sub(count, text)
