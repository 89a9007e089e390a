"""A language's date words, from dateparser's locale data (never a list of our own), and the readings built on them
that the date readers (focal.sensing.dates, focal.sensing.locale_reading) share:

- `vocabulary`: the words that carry a date in the language — month and weekday names, "mañana", "pasado",
  "next" — all the words of the library's data but its filler (its skip words, and the language's function words of
  focal.sensing.language), its words for the time of day ("matin"), and abbreviations of one or two letters ("s" of
  "semaine": a word of its own too); a figure carries a date too. A date phrase with such a word right beside it that the
  library does not read as the same date was only partly read (`locale_reading.partly_read`).
- `named_weekday`: the weekday a phrase names (names of three letters or more: "Fr", "mi" are words too).
- `day_of_month`: a day of the month without its month is its next occurrence from the turn's date (today
  included; the latest for a field whose dates lie in the past); a weekday named with it that it does not fall on
  leaves it unknown.
- `without_ordinal_marks`: "1er" as "1", as the library reads it ("le 1er décembre").
- `day_figure`: the one figure of a text that may be a day of the month ("5", "5th", "5.", "1er"), with an ordinal
  mark the library reads after a day (its skip words: "th", "er"; a full stop), or None.
"""

from __future__ import annotations

import importlib
import re
from datetime import date
from functools import lru_cache
from typing import Any

from focal.sensing.language import STOPWORDS

NEAREST_DAYS = 120  # as focal.sensing.dates: further away, which occurrence is meant is not clear
WORD = re.compile(r"[^\W\d_]+|\d+")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_DAY_FIGURE = re.compile(r"(?<![\w.,/-])(\d{1,2})([^\W\d_]{1,2}|[.ºª°])?(?![\w/-]|[.,]\d)")


# the parts of the library's data that name no day: its own settings and filler, the time of day ("matin" of
# "demain matin" leaves the day as it is), and other regions' words
_NOT_DATE_KEYS = frozenset({"name", "date_order", "skip", "pertain", "am", "pm", "hour", "minute", "second",
                            "locale_specific", "sentence_splitter_group"})


class DateWordsUnavailable(RuntimeError):
    """dateparser's data for a language cannot be imported: its date words are unknown."""


@lru_cache(maxsize=8)
def _info(lang: str) -> dict[str, Any]:
    try:
        module = importlib.import_module(f"dateparser.data.date_translation_data.{lang}")
    except ImportError as exc:
        raise DateWordsUnavailable(f"dateparser's date words of {lang!r} are not importable ({exc})") from exc
    return dict(module.info)


def library_data(lang: str) -> dict[str, Any]:
    """The library's date data of `lang` (month names, units, relative phrases); DateWordsUnavailable without it."""
    return _info(lang)


def _words(value: Any) -> set[str]:
    if isinstance(value, str):
        return {w.lower() for w in WORD.findall(value) if not w.isdigit()}
    if isinstance(value, dict):
        return set().union(*(_words(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_words(v) for v in value)) if value else set()
    return set()


@lru_cache(maxsize=8)
def filler(lang: str) -> frozenset[str]:
    """Words around a date that say nothing of it: the library's skip words and the language's function words."""
    info = _info(lang)
    return frozenset(_words(info.get("skip", [])) | _words(info.get("pertain", [])) | STOPWORDS.get(lang, frozenset()))


@lru_cache(maxsize=8)
def vocabulary(lang: str) -> frozenset[str]:
    """The words that carry a date in `lang` (see the module)."""
    info = _info(lang)
    dated = {k: v for k, v in info.items() if k not in _NOT_DATE_KEYS}
    return frozenset(w for w in _words(dated) - filler(lang) if len(w) >= 3)  # "s", "je": abbreviations, words too


@lru_cache(maxsize=8)
def _weekday_names(lang: str) -> dict[str, int]:
    info = _info(lang)
    return {w: i for i, day in enumerate(_WEEKDAYS) for w in _words(info.get(day, [])) if len(w) >= 3}


@lru_cache(maxsize=8)
def _month_names(lang: str) -> frozenset[str]:
    info = _info(lang)
    return frozenset(w for month in _MONTHS for w in _words(info.get(month, [])) if len(w) >= 3)


def named_weekday(phrase: str, lang: str) -> int | None:
    """The weekday (0 = Monday) `phrase` names, or None; several different ones are none."""
    names = _weekday_names(lang)
    named = {names[w.lower()] for w in WORD.findall(phrase) if w.lower() in names}
    return named.pop() if len(named) == 1 else None


def names_a_month(phrase: str, lang: str) -> bool:
    return any(w.lower() in _month_names(lang) for w in WORD.findall(phrase))


def day_of_month(day: int, today: date, weekday: int | None = None, side: str = "either") -> date | None:
    """The next `day` of a month from `today` (today included) — the latest one when the value is expected in the
    past (`side`) — within NEAREST_DAYS; None when `weekday` is given and that date does not fall on it ("Thursday
    the 4th" when the next 4th is a Friday: which is meant is unclear)."""
    step = -1 if side == "past" else 1
    year, month = today.year, today.month
    for _ in range(3):  # a 31st is at most two months away
        try:
            candidate: date | None = date(year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and (candidate - today).days * step >= 0:
            if abs((candidate - today).days) > NEAREST_DAYS or weekday not in (None, candidate.weekday()):
                return None
            return candidate
        month += step
        year, month = (year + 1, 1) if month == 13 else (year - 1, 12) if month == 0 else (year, month)
    return None


def day_figure(text: str, lang: str) -> re.Match[str] | None:
    """The only figure of `text` when it may be a day of the month (see the module), or None."""
    figures = list(_DAY_FIGURE.finditer(text))
    if len(figures) != 1 or len(re.findall(r"\d+", text)) != 1:
        return None
    m = figures[0]
    mark = m.group(2)
    if mark is not None and mark not in ".ºª°" and mark.lower() not in _words(_info(lang).get("skip", [])):
        return None
    return m if 1 <= int(m.group(1)) <= 31 else None


def lone_day_words(lang: str) -> frozenset[str]:
    """Words an answer giving only a day of the month may hold beside it: filler, weekday names, the word "day"."""
    day = {w for w in _words(_info(lang).get("day", [])) if len(w) >= 3}
    return filler(lang) | frozenset(_weekday_names(lang)) | frozenset(day)


def a_month_name(lang: str) -> str:
    """One full month name of `lang` (the library's), to supply a day's month when asking the library about it."""
    return max(_info(lang)["december"], key=len)


def without_ordinal_marks(text: str, lang: str) -> str:
    """`text` with the ordinal marks the library lists among its skip words taken off a day's figure ("1er" → "1"),
    which the library reads only apart ("le 1er décembre")."""
    marks = {w for w in _words(_info(lang).get("skip", [])) if w.isalpha()}
    return re.sub(r"(?<![\w.,])(\d{1,2})([^\W\d_]{1,2})(?!\w)",
                  lambda m: m.group(1) if m.group(2).lower() in marks else m.group(0), text)
