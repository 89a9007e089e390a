"""Dates and figures as a customer writes them in Spanish, German or French, brought to the forms the readers
already read (focal.sensing.dates, focal.sensing.money, the figure readers of focal.sensing.extraction).

- Dates are found by dateparser (its language data: month and weekday names, "mañana", "übermorgen", "dans 3
  jours"), the day-month-year sequence of each language from CLDR (data/locale_words.json): a day and month with no
  year become "May 3" (the date reader gives it its year: the nearest to the turn's date, or unknown without one), a
  date with a four-digit year
  its ISO form, and a date named relative to today ("mañana", "el martes") its ISO form from the turn's date only —
  never from the wall clock, and only when the message answers the date's own prompt (as in English).
- Figures are read in the language's own style (CLDR's, focal.text.numbers: "1.234,56", "1 234,56"), and an amount
  beside a currency sign, code or the language's name of the currency (CLDR: "1.234,56 €", "50 dólares") is written
  with its code before it ("EUR 1234.56", "USD 50").

dateparser is an optional dependency (the `multilingual` extra): without it dates are read as in English.

The turn's language comes from `reading_in` (the sensor sets it for the turn); English, or no language, leaves the
text as it is.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Any

from focal.sensing.locale_words_cldr import TABLE
from focal.text.numbers import number_styles, read_figure

_LANG: ContextVar[str | None] = ContextVar("reading_language", default=None)
LANGS = ("es", "de", "fr")
ENGLISH_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                  "November", "December")
_SHIFT = timedelta(days=37)  # a second base date: a relative date moves with it, "3 de mayo" does not


@contextlib.contextmanager
def reading_in(lang: str | None) -> Iterator[None]:
    token = _LANG.set(lang)
    try:
        yield
    finally:
        _LANG.reset(token)


def current() -> str | None:
    lang = _LANG.get()
    return lang if lang in LANGS else None


# ---------------------------------------------------------------- figures


def locale_decimal(token: str, lang: str) -> Decimal | None:
    """A figure written in `lang`'s style (CLDR, focal.text.numbers), or None when that style does not write it so."""
    styles = number_styles([lang])
    return read_figure(token, styles[0]) if len(styles) == 1 else None


@lru_cache(maxsize=1)
def _words() -> dict[str, Any]:
    return dict(json.loads(TABLE.read_text(encoding="utf-8")))


def _currency_words(lang: str) -> dict[str, str]:
    """Word (lower-case) → currency code: the language's names of the currencies, their symbols and codes (CLDR)."""
    return {**_words()[lang]["currencies"], "$": "USD", "€": "EUR", "£": "GBP"}


_FIGURE = re.compile(r"(?<![\w.,])\d{1,3}(?:(?:[.\u00a0\u202f ]\d{3})+)(?:,\d+)?(?![\w]|[.,]\d)|(?<![\w.,])\d+(?:,\d+)?(?![\w]|[.,]\d)")


def currency_near(text: str, start: int, end: int, lang: str) -> tuple[str, int, int] | None:
    """(the currency code named beside the figure at `start`:`end`, the span with it) in `lang`'s words, or None."""
    words = _currency_words(lang)
    after = re.match(r"\s?([^\W\d_]+|[$€£])", text[end:])
    if after and after.group(1).lower() in words:
        return words[after.group(1).lower()], start, end + after.end()
    before = re.search(r"([^\W\d_]+|[$€£])\s?$", text[:start])
    if before and before.group(1).lower() in words:
        return words[before.group(1).lower()], before.start(), end
    return None


def figures_as_read(text: str, lang: str | None = None) -> str:
    """`text` with `lang`'s figures in plain form, and an amount beside a currency as '<CODE> <figure>'."""
    lang = lang or current()
    if lang not in LANGS:
        return text
    out, at = [], 0
    for m in _FIGURE.finditer(text):
        value = locale_decimal(m.group(0), lang)
        if value is None or m.start() < at:
            continue
        plain = format(value.normalize(), "f") if value == value.to_integral() else format(value, "f")
        money = currency_near(text, m.start(), m.end(), lang)
        start, end, said = (money[1], money[2], f"{money[0]} {plain}") if money else (m.start(), m.end(), plain)
        if start < at:
            continue
        out.append(text[at:start] + said)
        at = end
    return "".join(out) + text[at:]


# ---------------------------------------------------------------- dates


def _date_order(lang: str) -> str:
    """'DMY', 'MDY' or 'YMD': the sequence of CLDR's short date pattern of `lang`."""
    return str(_words()[lang]["date_sequence"])


def _parser_settings(lang: str, base: datetime) -> dict[str, Any]:
    return {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "future", "DATE_ORDER": _date_order(lang),
            "RETURN_AS_TIMEZONE_AWARE": False}


def _search(text: str, lang: str, base: datetime) -> list[tuple[str, datetime]]:
    try:
        from dateparser.search import search_dates
    except ImportError:  # the multilingual extra is not installed: dates are read as in English
        return []
    return list(search_dates(text, languages=[lang], settings=_parser_settings(lang, base)) or [])


def _period(phrase: str, lang: str, base: datetime) -> str | None:
    from dateparser.date import DateDataParser

    return DateDataParser(languages=[lang], settings=_parser_settings(lang, base)).get_date_data(phrase).period


def _as_english(phrase: str, at: datetime, moved: datetime | None, lang: str, today: date | None,
                answering: bool) -> str | None:
    """What the date reader reads for `phrase` (found as `at`, and as `moved` from a later base), or None."""
    base = datetime.combine(today or date(2000, 1, 1), datetime.min.time())
    if _period(phrase, lang, base) not in ("day", None):
        return None  # a week, a month: no day
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


def dates_as_read(text: str, today: date | None = None, answering: bool = False, lang: str | None = None) -> str:
    """`text` with the dates written in `lang` in the forms focal.sensing.dates reads (see the module)."""
    lang = lang or current()
    if lang not in LANGS or not any(c.isalpha() or c.isdigit() for c in text):
        return text
    text = _numeric_dates(text, lang)
    base = datetime.combine(today or date(2000, 1, 1), datetime.min.time())
    moved = dict(_search(text, lang, base + _SHIFT))
    for phrase, at in _search(text, lang, base):
        said = _as_english(phrase, at, moved.get(phrase), lang, today, answering)
        if said is not None and phrase in text:
            text = text.replace(phrase, said, 1)
    return text


def as_read(kind: str, text: str, today: date | None = None, answering: bool = False) -> str:
    """The customer's text as the reader of a `kind` value reads it, in the turn's language (see the module)."""
    if current() is None:
        return text
    if kind in ("money", "percentage", "integer", "number"):
        return figures_as_read(text)
    if kind == "date":
        return dates_as_read(text, today, answering)
    return text
