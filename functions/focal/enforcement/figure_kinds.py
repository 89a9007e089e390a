"""The kind of a figure as its own marks write it, in any language: money beside a currency sign (any character of
Unicode's currency-symbol category: $, €, £, ¥, ₹, ₺ …), a share beside a percent sign (%, ％, ٪, ‰), a time of
day written as a clock (hours and minutes parted by ":" or "h", as "19:00" or "10h30", or with am/pm).

A figure with none of these marks ("12 months", "30 Tage", "€" spelt as a word) has no kind here (`None`): it may be
any, and is compared with every figure of the agent's (focal.enforcement.figure_context). Kinds only ever narrow
which of the agent's facts a figure competes with — a figure of one kind is never the agent's figure of another
("$24" is no "24 hours", "20 %" no "€20")."""

from __future__ import annotations

import re
import unicodedata

MONEY, SHARE, CLOCK = "money", "share", "clock"
_PERCENT = frozenset("%％٪‰")
_CLOCK = re.compile(r"\d{1,2}(?::\d{2}|h\d{2})(?!\d)|\d\s?(?:[ap]\.?m\.?)(?![^\W\d_])", re.IGNORECASE)


def _marks(text: str) -> str | None:
    if any(unicodedata.category(ch) == "Sc" for ch in text):
        return MONEY
    if any(ch in _PERCENT for ch in text):
        return SHARE
    if _CLOCK.search(text):
        return CLOCK
    return None


def figure_kind(text: str, start: int, end: int) -> str | None:
    """The kind of the figure at `text[start:end]`: read from the figure and the tokens on either side of it (a sign
    may stand apart, "50 $", "€ 50", "25 %", "8 pm"); a neighbour that holds digits is another figure, not a mark."""
    own = text[start:end]
    before = [t for t in text[:start].split()[-1:] if not any(ch.isdigit() for ch in t)]
    after = [t for t in text[end:].split()[:1] if not any(ch.isdigit() for ch in t)]
    sign = _marks(" ".join(before + after))
    if _marks(own) is not None:
        return _marks(own)
    if sign in (MONEY, SHARE):
        return sign
    return CLOCK if after and _CLOCK.search(f"{own} {after[0]}") else None


def compatible(one: str | None, other: str | None) -> bool:
    return one is None or other is None or one == other
