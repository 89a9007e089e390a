"""Dates and figures as a customer writes them in Spanish, German or French, brought to the forms the readers
already read (focal.sensing.dates, focal.sensing.money, the figure readers of focal.sensing.extraction).

- Dates are found by dateparser (its language data: month and weekday names, "mañana", "übermorgen", "dans 3
  jours"), the day order of each language from CLDR (babel): a day and month with no year become "May 3" (the date
  reader gives it its year: the nearest to the turn's date, or unknown without one), a date with a four-digit year
  its ISO form, and a date named relative to today ("mañana", "el martes") its ISO form from the turn's date only —
  never from the wall clock, and only when the message answers the date's own prompt (as in English).
- Figures are read by babel in the language's own conventions ("1.234,56", "1 234,56"), and an amount beside a
  currency sign, code or the language's name of the currency ("1.234,56 €", "50 dólares") is written with its code
  before it ("EUR 1234.56", "USD 50"). `locale_decimal` is the one place a figure is read (a swappable helper).

The turn's language comes from `reading_in` (the sensor sets it for the turn); English, or no language, leaves the
text as it is.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Any

_LANG: ContextVar[str | None] = ContextVar("reading_language", default=None)
LANGS = ("es", "de", "fr")
ENGLISH_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                  "November", "December")
CURRENCIES = ("USD", "EUR", "GBP")
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
    """A figure written in `lang`'s conventions, or None when it is not one (babel, strict grouping)."""
    from babel.numbers import NumberFormatError, get_group_symbol, parse_decimal

    group = get_group_symbol(lang)
    try:  # a space of any width groups thousands where the language groups with one
        return parse_decimal(re.sub(r"[ \u00a0\u202f]", group, token) if group.isspace() else token, locale=lang, strict=True)
    except (NumberFormatError, ValueError):
        return None


@lru_cache(maxsize=8)
def _currency_words(lang: str) -> dict[str, str]:
    """Word (lower-case) → currency code: the language's names of the currencies (CLDR), their symbols and codes."""
    from babel.numbers import get_currency_name, get_currency_symbol

    out: dict[str, str] = {}
    for code in CURRENCIES:
        out[code.lower()] = code
        out[get_currency_symbol(code, locale=lang).lower()] = code
        for count in (1, 2):
            out[get_currency_name(code, count=count, locale=lang).split()[0].lower()] = code
    out.update({"$": "USD", "€": "EUR", "£": "GBP"})
    return out


_FIGURE = re.compile(r"(?<![\w.,])\d{1,3}(?:(?:[.\u00a0\u202f ]\d{3})+)(?:,\d+)?(?![\w]|[.,]\d)|(?<![\w.,])\d+(?:,\d+)?(?![\w]|[.,]\d)")


def _currency_near(text: str, start: int, end: int, lang: str) -> tuple[str, int, int] | None:
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
        money = _currency_near(text, m.start(), m.end(), lang)
        start, end, said = (money[1], money[2], f"{money[0]} {plain}") if money else (m.start(), m.end(), plain)
        if start < at:
            continue
        out.append(text[at:start] + said)
        at = end
    return "".join(out) + text[at:]


# ---------------------------------------------------------------- dates


@lru_cache(maxsize=8)
def _date_order(lang: str) -> str:
    """'DMY', 'MDY' or 'YMD': the order of CLDR's short date pattern of `lang`."""
    from babel.dates import get_date_format

    pattern = get_date_format("short", locale=lang).pattern.lower()
    found = sorted((pattern.find(c), c) for c in "dmy" if c in pattern)
    return "".join(c for _, c in found).upper() or "DMY"


def _parser_settings(lang: str, base: datetime) -> dict[str, Any]:
    return {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "future", "DATE_ORDER": _date_order(lang),
            "RETURN_AS_TIMEZONE_AWARE": False}


def _search(text: str, lang: str, base: datetime) -> list[tuple[str, datetime]]:
    from dateparser.search import search_dates

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
    """"12.05.2025", "12/05/2025": day and month in the language's own order (CLDR), as ISO."""
    order = _date_order(lang)

    def iso(m: re.Match[str]) -> str:
        parts = dict(zip(order, (m.group(1), m.group(3), m.group(4)), strict=True))
        year = int(parts["Y"]) + (2000 if len(parts["Y"]) == 2 else 0)
        try:
            return date(year, int(parts["M"]), int(parts["D"])).isoformat()
        except ValueError:
            return m.group(0)

    return _NUMERIC.sub(iso, text) if order in ("DMY", "MDY") else text


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
