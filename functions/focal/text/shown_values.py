"""Numbers and dates as the customer's language writes them, for the texts said to them (focal.variables.render).

English is written as it always was ("12,345.50", "2027-03-03"). For Spanish, German and French the style is CLDR's
(data/showing_styles.json, focal.text.showing_cldr): its decimal sign and group separator ("12 345,50" in French,
"12.345,50" in German and Spanish, two decimals as in English) and its long date ("3 mars 2027", "3. März 2027",
"3 de marzo de 2027"). The engine's readers read these forms back in the same language (focal.text.numbers, the
date readers), so an answer checked after it was filled is read with the values it was filled with.

The language comes from `showing_in` (the stages that fill texts set it for the turn); none, or one with no style
here, writes English.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import date
from functools import lru_cache
from importlib import resources
from typing import Any

from focal.text.views import check_view

_LANG: ContextVar[str | None] = ContextVar("focal_showing_language", default=None)
# a yes/no value as each language writes it (CLDR's data as Babel ships it has no such words)
_YES_NO = {"es": ("sí", "no"), "de": ("ja", "nein"), "fr": ("oui", "non")}
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_PATTERN = re.compile(r"'([^']*)'|(d+|M+|y+)")


@lru_cache(maxsize=1)
def _styles() -> dict[str, dict[str, Any]]:
    text = resources.files("focal.text").joinpath("data/showing_styles.json").read_text(encoding="utf-8")
    return dict(json.loads(text))


@contextlib.contextmanager
def showing_in(lang: str | None) -> Iterator[None]:
    token = _LANG.set(lang)
    try:
        yield
    finally:
        _LANG.reset(token)


def showing() -> str | None:
    """The language texts are filled in now, when it has a style of its own (else None: English)."""
    lang = _LANG.get()
    return lang if lang in _styles() else None


def shown_yes_no(value: bool, lang: str | None) -> str:
    """A yes/no value in `lang` ("oui", "nein"); English, or a language with no words here: "yes" / "no"."""
    yes, no = _YES_NO.get(lang or "", ("yes", "no"))
    return yes if value else no


def shown_decimal(value: float, lang: str) -> str:
    """`value` with two decimals in `lang`'s style: 12345.5 → "12 345,50" (fr), "12.345,50" (de, es)."""
    style = _styles()[lang]
    english = f"{value:,.2f}"
    return english.translate({ord(","): "\0", ord("."): style["decimal"]}).replace("\0", style["group"])


def as_date(value: Any) -> date | None:
    """A date value: a date, or a string that is an ISO date and nothing else."""
    if isinstance(value, date):
        return value
    m = _ISO_DATE.fullmatch(value.strip()) if isinstance(value, str) else None
    if m is None:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None  # "2027-02-30" is no date: written as given


def shown_date(day: date, lang: str) -> str:
    """`day` by `lang`'s long date pattern: "3 mars 2027", "3. März 2027", "3 de marzo de 2027"."""
    style = _styles()[lang]

    def field(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return m.group(1)
        token = m.group(2)
        if token[0] == "d":
            return f"{day.day:0{len(token)}d}"
        if token[0] == "M":
            return str(style["months"][day.month - 1]) if len(token) >= 3 else f"{day.month:0{len(token)}d}"
        return str(day.year)

    return _PATTERN.sub(field, style["date"])


def _literal(text: str) -> str:
    return "".join(r"\s+" if c.isspace() else re.escape(c) for c in text)


@lru_cache(maxsize=8)
def _long_date(lang: str) -> re.Pattern[str]:
    """`lang`'s long date as a pattern over the checked view (month names without accents, any case)."""
    style, parts, at = _styles()[lang], [], 0
    pattern = style["date"]
    for m in _PATTERN.finditer(pattern):
        parts.append(_literal(pattern[at:m.start()]))
        at = m.end()
        if m.group(1) is not None:
            parts.append(_literal(m.group(1)))
        elif m.group(2)[0] == "d":
            parts.append(r"(?P<d>\d{1,2})")
        elif m.group(2)[0] == "M":
            months = "|".join(re.escape(check_view(name)) for name in style["months"])
            parts.append(rf"(?P<m>{months})")
        else:
            parts.append(r"(?P<y>\d{4})")
    return re.compile(r"(?<!\w)" + "".join(parts) + r"(?!\w)", re.I)


def long_dates_as_iso(checked: str, languages: list[str]) -> str:
    """`checked` (a checked view) with every long date of `languages` ("3 de marzo de 2027") in its ISO form, as
    `shown_date` writes them: a reader of figures sees a date, not the amounts 3 and 2027."""
    for lang in languages:
        if lang not in _styles():
            continue
        months = [check_view(name).lower() for name in _styles()[lang]["months"]]

        def iso(m: re.Match[str], months: list[str] = months) -> str:
            try:
                return date(int(m.group("y")), months.index(m.group("m").lower()) + 1, int(m.group("d"))).isoformat()
            except ValueError:
                return m.group(0)

        checked = _long_date(lang).sub(iso, checked)
    return checked
