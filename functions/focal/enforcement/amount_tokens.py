"""The amounts a text writes, as the draft reader sees them (focal.enforcement.draft_reading): the figures of a
money, percentage or number field, their values, and how they are shown."""

from __future__ import annotations

import re

from focal.enforcement.amount_cues import NUM, SHARES
from focal.enforcement.amount_forms import spell_out
from focal.enforcement.linear_scan import overlaps
from focal.text.amounts import amounts_in_one_form, percents_in_one_form
from focal.text.draft_view import as_checked

_I = re.IGNORECASE
MONEY = re.compile(
    rf"(?:[$€£]\s?|\b(?:usd|us\$|eur|gbp)\s?)(?P<a>{NUM})(?![\d%])"
    rf"|\b(?P<b>{NUM})\s?(?:dollars?|bucks|usd|euros?|eur|pounds|quid|gbp)\b"
    r"|(?<![\w.$€£,/-])(?P<c>\d+\.\d{2})(?![\w.%/-])(?!\s?percent)", _I)
PERCENT = re.compile(r"(?<![\w.])(?P<p>\d+(?:\.\d+)?)\s?(?:%|percent\b|per\s?cent\b|pct\b)", _I)
_BARE = re.compile(r"(?<![\w.$€£/-])(?P<n>\d+(?:\.\d+)?)(?![\w./-])")
_DIGITS = re.compile(r"\d+(?:\.\d+)?")


def tokens(kind: str, text: str) -> list[re.Match[str]]:
    """The amounts of `kind` in `text`, in order: currency amounts, percentages, or bare numbers (not inside a
    currency amount: "$1,500.00" is no count of 1 or 500)."""
    if kind == "money":
        return list(MONEY.finditer(text))
    if kind == "percentage":
        return list(PERCENT.finditer(text))
    money = [m.span() for m in MONEY.finditer(text)]
    return [m for m in _BARE.finditer(text) if not overlaps(money, *m.span())]


def number(m: re.Match[str]) -> float:
    raw = next(g for g in m.groups() if g is not None)
    return float(raw.replace(",", ""))


def share(m: re.Match[str]) -> float:
    raw = m.group("share").lower()
    digits = _DIGITS.match(raw)
    return float(digits.group(0)) if digits else SHARES[raw]


def show(kind: str, value: float) -> str:
    shown = f"{value:,.2f}".rstrip("0").rstrip(".") if value % 1 else f"{value:,.0f}"
    return f"${shown}" if kind == "money" else f"{shown}%" if kind == "percentage" else shown


def normalised(kind: str, text: str) -> str:
    """The text in the forms the reader knows for `kind` (focal.enforcement.amount_forms)."""
    if kind == "money":
        return spell_out(amounts_in_one_form(text))
    if kind == "percentage":
        return spell_out(percents_in_one_form(text))
    return as_checked(text)


