"""Dates and figures as a customer writes them in Spanish, German or French, brought to the forms the readers
already read (focal.sensing.dates, focal.sensing.money, the figure readers of focal.sensing.extraction).

- Dates are found by dateparser (its language data: month and weekday names, "mañana", "übermorgen", "dans 3
  jours"), the day-month-year sequence of each language from CLDR (data/locale_words.json): a day and month with no
  year become "May 3" (the date reader gives it its year: the nearest to the turn's date, or unknown without one), a
  date with a four-digit year
  its ISO form, and a date named relative to today ("mañana", "el martes") its ISO form from the turn's date only —
  never from the wall clock, and only when the message answers the date's own prompt (as in English).
- A day named relative to today in CLDR's words ("pasado mañana", "nächsten Freitag") is read whole, as the English
  reader reads the same phrase (focal.sensing.relative_dates).
- A date is read whole or not at all: one the library read only part of ("mañana" of "pasado mañana": `partly_read`)
  is unknown, never the part; a weekday the date does not fall on leaves it unknown ("jeudi 4 décembre"); a day of
  the month without its month is its next occurrence ("le vendredi 4", "el día 5", "the 5th": `lone_day`), or the
  latest for a field whose dates lie in the past (`date_side`). The words these checks need are the library's
  (focal.sensing.date_words), in English too.
- Figures are read in the language's own style by focal.sensing.locale_figures ("1.234,56 €" → "EUR 1234.56");
  `as_read` hands a figure's kinds to it.

dateparser is an optional dependency (the `multilingual` extra; on AWS it travels in the deps layer). Without it a
date in another language is never read as English: reading one raises `DateReaderUnavailable` (the turn fails closed
as `stage_failed:DateReaderUnavailable`, like a missing multilingual embedder).

The turn's language comes from `reading_in` (focal.sensing.reading_language; the sensor sets it for the turn);
English, or no language, leaves the text as it is.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any

from focal.sensing import lexicon
from focal.sensing.date_words import (
    WORD,
    DateWordsUnavailable,
    a_month_name,
    day_figure,
    day_of_month,
    filler,
    lone_day_words,
    named_weekday,
    names_a_month,
    vocabulary,
    without_ordinal_marks,
)
from focal.sensing.dates import UNREAD, date_spans, read_date, read_dates
from focal.sensing.locale_figures import figures_as_read
from focal.sensing.locale_words_cldr import shipped_table
from focal.sensing.reading_language import LANGS, current, turn_language
from focal.sensing.relative_dates import read_relative_days

ENGLISH_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                  "November", "December")
_SHIFT = timedelta(days=37)  # a second base date: a relative date moves with it, "3 de mayo" does not


# ---------------------------------------------------------------- dates


def _date_order(lang: str) -> str:
    """'DMY', 'MDY' or 'YMD': the sequence of CLDR's short date pattern of `lang`."""
    return str(shipped_table()[lang]["date_sequence"])


def _parser_settings(lang: str, base: datetime) -> dict[str, Any]:
    sequence = {"DATE_ORDER": _date_order(lang)} if lang in LANGS else {}  # English: the library's own
    return {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "future", "RETURN_AS_TIMEZONE_AWARE": False, **sequence}


class DateReaderUnavailable(RuntimeError):
    """The date reader of a declared language cannot be imported here: its dates are unknown, never read as English."""

    def __init__(self, lang: str, reason: str) -> None:
        super().__init__(f"dates in {lang!r} cannot be read in this deployment: {reason}")
        self.lang = lang


def _search(text: str, lang: str, base: datetime) -> list[tuple[str, datetime]]:
    try:
        from dateparser.search import search_dates
    except ImportError as exc:
        raise DateReaderUnavailable(lang, f"dateparser is not importable ({exc})") from exc
    return list(search_dates(text, languages=[lang], settings=_parser_settings(lang, base)) or [])


def _date_data(phrase: str, lang: str, base: datetime) -> Any:
    try:
        from dateparser.date import DateDataParser
    except ImportError as exc:
        raise DateReaderUnavailable(lang, f"dateparser is not importable ({exc})") from exc
    return DateDataParser(languages=[lang], settings=_parser_settings(lang, base)).get_date_data(phrase)


def _period(phrase: str, lang: str, base: datetime) -> str | None:
    period = _date_data(phrase, lang, base).period
    return str(period) if period else None


_BEFORE = re.compile(r"([^\W_]+)[\s,]*$")
_AFTER = re.compile(r"^[\s,]*([^\W_]+)")


def _carries_a_date(word: str, lang: str) -> bool:
    try:
        return word.isdigit() or word.lower() in vocabulary(lang)
    except DateWordsUnavailable as exc:
        raise DateReaderUnavailable(lang, str(exc)) from exc


def _widened(text: str, start: int, end: int, lang: str) -> tuple[int, int]:
    """`start`:`end` widened over the words beside it that carry a date (see `partly_read`), across filler between
    them in the library's languages ("Donnerstag, den 4."); in English the reader's own patterns take such words
    ("Thursday the 4th" is read whole or not at all), and a word that names the value is no part of it ("the return
    date is December 14")."""
    def filler_word(word: str) -> bool:
        return lang in LANGS and word.lower() in filler(lang)

    at = start
    while (beside := _BEFORE.search(text[:at])) is not None and (_carries_a_date(beside.group(1), lang)
                                                                  or filler_word(beside.group(1))):
        at = beside.start()
        start = at if _carries_a_date(beside.group(1), lang) else start
    at = end
    while (beside := _AFTER.search(text[at:])) is not None and (_carries_a_date(beside.group(1), lang)
                                                                 or filler_word(beside.group(1))):
        at += beside.end()
        end = at if _carries_a_date(beside.group(1), lang) else end
    return start, end


def partly_read(text: str, start: int, end: int, value: date, lang: str, base: datetime,
                bounds: tuple[int, int] | None = None) -> bool:
    """Whether the date read at `start`:`end` of `text` is only part of a date phrase: words beside it carry a date
    too (figures, or words of the library's date data: "pasado" of "pasado mañana", "day after" of "day after
    tomorrow"), and the library does not read the phrase with them as the same date. `bounds`: where the dates read
    before and after it begin and end (a date of its own beside it is no part of it: "yesterday, March 9")."""
    lo, hi = bounds or (0, len(text))
    wide_start, wide_end = _widened(text[lo:hi], start - lo, end - lo, lang)
    wide_start, wide_end = wide_start + lo, wide_end + lo
    if (wide_start, wide_end) == (start, end):
        return False
    read = _date_data(text[wide_start:wide_end], lang, base).date_obj
    return read is None or read.date() != value


def _as_english(phrase: str, at: datetime, moved: datetime | None, lang: str, today: date | None,
                answering: bool, side: str = "either") -> str | None:
    """What the date reader reads for `phrase` (found as `at`, and as `moved` from a later base), or None; UNREAD for
    a date that cannot be told (a weekday the date does not fall on)."""
    base = datetime.combine(today or date(2000, 1, 1), datetime.min.time())
    if _period(phrase, lang, base) not in ("day", None):
        return None  # a week, a month: no day
    weekday = named_weekday(phrase, lang)
    if moved is not None and moved.day == at.day and moved.month != at.month:  # a day of the month alone: "le 4"
        if today is None or not answering:
            return None
        day = day_of_month(at.day, today, weekday, side)  # "le vendredi 4": the next 4th, if it is a Friday
        return day.isoformat() if day is not None else UNREAD
    if weekday is not None and at.weekday() != weekday:
        return UNREAD  # "jeudi 4 décembre" when the 4th is a Friday: which one is meant is not clear
    if moved is None or (moved.month, moved.day) != (at.month, at.day):  # named relative to today
        return at.date().isoformat() if today is not None and answering else None
    if re.search(r"\b\d{4}\b", phrase):
        return at.date().isoformat()
    return f"{ENGLISH_MONTHS[at.month - 1]} {at.day}"


_NUMERIC = re.compile(r"\b(\d{1,4})([./-])(\d{1,2})\2(\d{2,4})\b")


def _numeric_dates(text: str, lang: str) -> str:
    """"12.05.2025", "12/05/2025": day and month in the language's own sequence (CLDR), as ISO."""
    sequence = _date_order(lang)

    def iso(m: re.Match[str]) -> str:
        parts = dict(zip(sequence, (m.group(1), m.group(3), m.group(4)), strict=True))
        year = int(parts["Y"]) + (2000 if len(parts["Y"]) == 2 else 0)
        try:
            return date(year, int(parts["M"]), int(parts["D"])).isoformat()
        except ValueError:
            return m.group(0)

    return _NUMERIC.sub(iso, text) if sequence in ("DMY", "MDY") else text


# A reference beside a date (a member number, a postcode: letters with three or more digits, or five or more digits)
# and a time of day ("18 Uhr", "18h", "18:30") are no part of it, yet the library's search reads "GM550017, 23
# novembre 1978, 69003" as "novembre" and "1978" alone, and "Dienstag um 18 Uhr" as the 18th. Such words are blanked
# (same length, so every place found is the same in the text) before the search.
_NO_DATE = re.compile(r"\b(?=[^\W_]*\d[^\W_]*\d[^\W_]*\d)(?=[^\W_]*[^\W\d_])[^\W_]+\b|\b\d{5,}\b"
                      r"|\b(?:[01]?\d|2[0-3])(?:[:h.][0-5]\d)?\s?(?:uhr|h|heures?|horas?|hrs|am|pm)(?![^\W_])"
                      r"|\b(?:[01]?\d|2[0-3]):[0-5]\d\b", re.IGNORECASE)


def _references_blanked(text: str) -> str:
    return _NO_DATE.sub(lambda m: " " * len(m.group(0)), text)


def dates_as_read(text: str, today: date | None = None, answering: bool = False, lang: str | None = None,
                  side: str = "either", worded_only: bool = False) -> str:
    """`text` with the dates written in `lang` in the forms focal.sensing.dates reads (see the module); a date the
    library read only part of (`partly_read`) becomes UNREAD, which that reader takes for a date it cannot read.
    `worded_only`: only dates with a word ("le 3 mars", "demain"), for a reader of figures ("2,5" is no 2 May)."""
    lang = lang or current()
    if lang not in LANGS or not any(c.isalpha() or c.isdigit() for c in text):
        return text
    base = datetime.combine(today or date(2000, 1, 1), datetime.min.time())
    try:  # CLDR's phrases the library reads only word by word ("pasado mañana", "vendredi prochain")
        text = _numeric_dates(without_ordinal_marks(text, lang), lang)
        text = read_relative_days(text, lang, today, answering, lambda phrase: _library_day(phrase, lang, base))
    except DateWordsUnavailable as exc:
        raise DateReaderUnavailable(lang, str(exc)) from exc
    searched = _references_blanked(text)
    moved = dict(_search(searched, lang, base + _SHIFT))
    found = _search(searched, lang, base)
    floor = 0  # where the last date read ends: what comes before it is read
    for n, (phrase, at) in enumerate(found):
        start = text.find(phrase, floor)
        if start < 0 or not _names_a_date(phrase, lang) or worded_only and not any(c.isalpha() for c in phrase):
            continue
        after = [i for p, _ in found[n + 1:] if (i := text.find(p, start + len(phrase))) >= 0]
        if partly_read(_references_blanked(text), start, start + len(phrase), at.date(), lang, base,
                       (floor, min(after, default=len(text)))):
            said: str | None = UNREAD
        else:
            said = _as_english(phrase, at, moved.get(phrase), lang, today, answering, side)
        if said is not None:
            text = text[:start] + said + text[start + len(phrase):]
            floor = start + len(said)
    return text


def _library_day(phrase: str, lang: str, base: datetime) -> date | None:
    read = _date_data(phrase, lang, base).date_obj
    return read.date() if read is not None else None


def _names_a_date(phrase: str, lang: str) -> bool:
    """A phrase the library found is a date only with a figure or a word of three letters or more that is no
    function word of the language: "je" (French "I") is no Thursday, "so" no Sunday."""
    try:
        known = filler(lang)
    except DateWordsUnavailable as exc:
        raise DateReaderUnavailable(lang, str(exc)) from exc
    return any(w.isdigit() or (len(w) >= 3 and w.lower() not in known) for w in WORD.findall(phrase))


def lone_day(text: str, lang: str, today: date, side: str = "either") -> date | None:
    """The date of an answer that gives only a day of the month ("the 5th", "el día 5", "le 5", "am 5.", "Friday the
    4th"): its next occurrence from `today`, on the weekday named with it. Beside the figure, only filler, weekday
    names and the word "day" (focal.sensing.date_words), or words the library reads as part of the date once the day's
    month is written beside it ("am" of "am 5. Dezember"); anything else ("3 nights", "pasado") is no day alone."""
    try:
        m = day_figure(text, lang)
        if m is None or lexicon.refused(text[:m.start()]) or names_a_month(text, lang):
            return None
        rest = {w.lower() for w in WORD.findall(text[:m.start()] + " " + text[m.end():])} - lone_day_words(lang)
        if rest and not rest <= _read_with_a_month(text, m, lang, today):
            return None
        return day_of_month(int(m.group(1)), today, named_weekday(text, lang), side)
    except DateWordsUnavailable as exc:
        raise DateReaderUnavailable(lang, str(exc)) from exc


def _read_with_a_month(text: str, figure: re.Match[str], lang: str, today: date) -> set[str]:
    """The words the library reads as part of a date once a month is written beside the day's figure, in the
    language's sequence of day and month (CLDR)."""
    month = a_month_name(lang)
    if lang in LANGS and _date_order(lang).index("M") < _date_order(lang).index("D"):
        probe = f"{text[:figure.start()]}{month} {text[figure.start():]}"
    else:
        probe = f"{text[:figure.end()]} {month}{text[figure.end():]}"
    base = datetime.combine(today, datetime.min.time())
    return {w.lower() for phrase, _ in _search(probe, lang, base) for w in WORD.findall(phrase)}


def answer_date(message: str, text: str, today: date | None, answering: bool, strict: bool,
                side: str = "either") -> str | None:
    """The date the customer's `message` states (`text`: the message as the date reader reads it, `dates_as_read`),
    as an ISO string or None. An answer to the date's own prompt that the reader leaves without a date may give a
    day of the month alone (`lone_day`); and in English, where the reader is focal.sensing.dates, a date it read only
    part of (`partly_read`: "day after tomorrow" is not tomorrow) is unknown, as in the other languages."""
    value = read_date(text, today, answering, strict=strict, side=side)
    if not (strict and answering and today is not None):
        return value
    if value is None:  # a date read in part (UNREAD) is not read again; the day of the month alone may still be read
        day = lone_day(message, current() or "en", today, side)
        return day.isoformat() if day is not None else None
    return None if _partly_read_in_english(text, today, answering, side) else value


def answer_dates(message: str, today: date | None, answering: bool,
                 side: str = "either") -> tuple[str, list[tuple[int, int, str]] | None]:
    """(the customer's `message` as the date reader reads it, every date it states there as focal.sensing.dates'
    `read_dates` gives them), with the readings of `answer_date`: a day of the month alone answering a date's prompt,
    and no date read only in part."""
    text = dates_as_read(message, today, answering, side=side)
    found = read_dates(text, today, answering, side)
    if found is None or not (answering and today is not None):
        return text, found
    if not found:
        day = lone_day(message, current() or "en", today, side)
        return text, [(0, len(text), day.isoformat())] if day is not None else []
    return text, None if _partly_read_in_english(text, today, answering, side) else found


def _partly_read_in_english(text: str, today: date, answering: bool, side: str) -> bool:
    """In an English turn, whether a date the reader found is only part of a date phrase (`partly_read`)."""
    if (current() or "en") != "en":
        return False  # read whole already (`dates_as_read`)
    base = datetime.combine(today, datetime.min.time())
    found = date_spans(text, today, answering, side)
    for n, (start, end, iso) in enumerate(found):
        bounds = (found[n - 1][1] if n else 0, found[n + 1][0] if n + 1 < len(found) else len(text))
        if partly_read(text, start, end, date.fromisoformat(iso), "en", base, bounds):
            return True
    return False


def as_read(kind: str, text: str, today: date | None = None, answering: bool = False, side: str = "either") -> str:
    """The customer's text as the reader of a `kind` value reads it, in the turn's language (see the module)."""
    if kind in ("integer", "number") and (lang := turn_language()) is not None:
        # any language's figure style ("12,345.5" in English); a date's figures are no count: the dates of the
        # turn's language are put in English, which the reader blanks
        dated = dates_as_read(text, today, answering, side=side, worded_only=True)
        return figures_as_read(dated, lang, blank_unread=True, spelled=False)
    if current() is None:
        return text
    if kind in ("money", "percentage"):
        return figures_as_read(text)
    if kind == "date":
        return dates_as_read(text, today, answering, side=side)
    return text
