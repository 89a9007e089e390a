"""Written figures read the way the languages an agent declares write them ("1.234,56" is 1234.56 in German,
Spanish and French; "1,234.56" is 1234.56 in English).

Each language's style is CLDR's, shipped in data/number_styles.json (focal.text.number_styles_cldr derives it with
Babel): one decimal sign, the group separators its regions write with that decimal sign, and the grouping sizes
("1,00,000" in Hindi). A figure is read strictly: digits of any script (focal.text.views reads them as ASCII), at
most one decimal sign, group separators only between whole groups of the right size, one kind of separator. A
figure no declared style reads has no reading (unknown, never a guess); one two declared styles read differently
("1.234" for English and German) has both, and a caller that needs one value treats it as unknown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from importlib import resources

from focal.text.views import reader_view


@dataclass(frozen=True)
class NumberStyle:
    decimal: str
    groups: frozenset[str]
    grouping: tuple[int, int]  # the size of the last group, and of the groups before it


@lru_cache(maxsize=1)
def _table() -> dict[str, NumberStyle]:
    raw = json.loads(resources.files("focal.text").joinpath("data", "number_styles.json").read_text(encoding="utf-8"))
    return {language: NumberStyle(decimal=reader_view(entry["decimal"]),
                                  groups=frozenset(reader_view(g) for g in entry["groups"]),  # a no-break space is " "
                                  grouping=(entry["grouping"][0], entry["grouping"][1]))
            for language, entry in raw.items()}


def number_styles(languages: Iterable[str] | None = None) -> tuple[NumberStyle, ...]:
    """The styles of `languages` (ISO 639 codes, "en" or "en-GB"); every style CLDR knows when none is given or none
    of them is known (a figure is then read every way it can be)."""
    return _styles(tuple(sorted({re.split(r"[-_]", c.strip())[0].lower() for c in languages or ()})))


@lru_cache(maxsize=256)
def _styles(codes: tuple[str, ...]) -> tuple[NumberStyle, ...]:
    table = _table()
    known = [table[code] for code in codes if code in table]
    return tuple(dict.fromkeys(known or table.values()))


def read_figure(figure: str, style: NumberStyle) -> Decimal | None:
    """The value of `figure` ("1.234,56") written in `style`, or None when that style does not write it so."""
    text = reader_view(figure).strip()
    whole, sign, fraction = text.partition(style.decimal)
    if sign and not fraction.isdigit() or not fraction.isascii():
        return None
    digits = _ungrouped(whole, style)
    if digits is None:
        return None
    return Decimal(digits + ("." + fraction if fraction else ""))


def _ungrouped(whole: str, style: NumberStyle) -> str | None:
    if whole.isdigit() and whole.isascii():
        return whole
    used = {c for c in whole if not c.isdigit()}
    if len(used) != 1 or not used <= style.groups:
        return None
    parts = whole.split(used.pop())
    last, inner = style.grouping
    if not all(p.isdigit() and p.isascii() for p in parts) or len(parts[-1]) != last or not 1 <= len(parts[0]) <= inner:
        return None
    if any(len(p) != inner for p in parts[1:-1]):
        return None
    return "".join(parts)


def figure_readings(figure: str, languages: Iterable[str] | None = None) -> set[Decimal]:
    """Every value `figure` has in the styles of `languages` (see `number_styles`): empty when none reads it."""
    return {value for style in number_styles(languages) if (value := read_figure(figure, style)) is not None}
