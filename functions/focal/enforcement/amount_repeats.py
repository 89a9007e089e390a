"""The same amount promised twice: counted by occurrence, not by distinct value (focal.enforcement.draft_reading).

Two different amounts are already "several amounts"; the same one said again is a second promise when the clause
that says it again is not a restatement:

- it opens with an additive word ("Additionally, 15% off at checkout", "Furthermore…", "On top of that…");
- it names another occasion than the clause that promised the amount ("15% off today. 15% off tomorrow.", "$30 now,
  and $30 next week") — unless it says when the same money arrives ("…you'll see $30 on your statement tomorrow");
- it names another object ("$40 for the lamp, and $40 for the desk", "15% off for you. 15% off for your partner.").

An amount written with a definite word ("the $30", "that 15%") restates; so does one said again with neither
another occasion nor another object ("I'll credit $30. You'll receive $30 within 5 days.").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from focal.enforcement.linear_scan import Suffixes

_I = re.IGNORECASE
_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_OCCASION = re.compile(
    rf"\b(?:right\s+)?now\b|\btoday\b|\btonight\b|\btomorrow\b|\bthis\s+(?:week|month|year|time|visit|stay|cycle)\b"
    r"|\b(?:next|following|coming|second)\s+(?:week|month|year|time|bill|billing|invoice|statement|cycle|period|renewal|"
    r"visit|stay|purchase|booking|trip|season|one|day)s?\b"
    rf"|\blater(?:\s+on)?\b|\bafterwards?\b|\bafter\s+that\b|\bin\s+(?:a|one|two|three|\d+)\s+(?:weeks?|months?|years?)\s+time\b"
    r"|\bat\s+(?:the\s+)?(?:check-?out|renewal|sign-?up|the\s+end\s+of\s+\w+|the\s+till|the\s+counter|the\s+register)\b"
    r"|\bonce\s+more\b|\bagain\b|\banew\b|\bon\s+another\s+occasion\b|\banother\s+time\b|\bone\s+more\s+time\b"
    rf"|\bon\s+{_DAYS}\b", _I)
# The same money arriving, not promised again: "you'll see $30 on your statement tomorrow", "it lands in 3 days".
_ARRIVAL = re.compile(r"\b(?:see|sees|seeing|reach\w*|arriv\w*|show(?:s|ing)?\s+up|appear\w*|land\w*|post(?:s|ed)?|reflect\w*|"
                      r"clear\w*|expect\w*|within|should\s+be\s+(?:there|visible|back))\b", _I)
# What the amount is for: "for the lamp", "towards your desk", "off your plan", "on your add-on" (not where it goes:
# "on your card").
_DET = r"(?:the|your|my|his|her|their|our|a|an|each|every|this|that)"
_NOT_OBJECT = (r"(?!(?:card|account|bank|statement|balance|wallet|way|file|us|it|them|that|this|now|today|tomorrow|top|time|"
               r"days?|weeks?|months?|a|an|the|at|in|to|by|with|from|of|and|or|but|so|as|if|when|once|until|till|before|after|"
               r"again|too|also|then|here|there|right|next|all|any|more|less|real|sure|good|free|instance|example|now)\b)")
_OBJECT = re.compile(
    rf"\b(?:for|towards?)\s+(?:{_DET}\s+)?{_NOT_OBJECT}(?P<o>[a-z][\w-]*)"
    rf"|\b(?:against|covering|off|on)\s+{_DET}\s+{_NOT_OBJECT}(?P<p>[a-z][\w-]*)", _I)
_REPEAT = re.compile(r"\bonce\s+more\b|\bagain\b|\banew\b|\bon\s+another\s+occasion\b|\banother\s+time\b"
                     r"|\bone\s+more\s+time\b|\ba\s+second\s+time\b", _I)
# An additive word opening the clause: the amount it promises comes on top of the one before.
LEADING_MORE = re.compile(
    r"^\W*(?:additionally|furthermore|moreover|in\s+addition|besides(?:\s+that|\s+this)?|on\s+top\s+of\s+(?:that|this|it)|"
    r"what(?:'s|\s+is)\s+more|likewise|similarly|plus|also|and\s+also|as\s+well)\b", _I)
_DEFINITE = re.compile(r"\b(?:the|that|this|those|these|your|same|said)\s+(?:\w+\s+)?$", _I)


@dataclass(frozen=True)
class Site:
    """Where an amount was promised: its value, and the occasions and objects its clause names."""
    value: float
    occasions: frozenset[str]
    objects: frozenset[str]


def _markers(text: str) -> tuple[frozenset[str], frozenset[str]]:
    occasions = frozenset(" ".join(m.group(0).lower().split()) for m in _OCCASION.finditer(text))
    objects = frozenset((m.group("o") or m.group("p")).lower() for m in _OBJECT.finditer(text))
    return occasions, objects


def site(value: float, text: str) -> Site:
    return Site(value, *_markers(text))


def sites_of(values: list[float], text: str) -> list[Site]:
    """A site for each of the amounts promised in one clause (its occasions and objects read once)."""
    if not values:
        return []
    markers = _markers(text)
    return [Site(value, *markers) for value in values]


def said_again(text: str, amounts: list[tuple[float, int]], sites: list[Site]) -> str | None:
    """Why an amount of `text` (value, position) that equals one promised in an earlier clause (`sites`) is a second
    promise of it; None when it restates it."""
    return said_again_of(text, amounts, lambda value: [s for s in sites if abs(s.value - value) < 0.005])


def said_again_of(text: str, amounts: list[tuple[float, int]], earlier_of: Callable[[float], list[Site]]) -> str | None:
    """`said_again`, with the earlier sites of a value (in the order they were promised) given by `earlier_of`."""
    if not amounts:
        return None
    occasions, objects = _markers(text)
    before = Suffixes(text)
    again: list[str | None] = []  # the additive word of the clause, read once when an amount asks
    for value, start in amounts:
        earlier = earlier_of(value)
        if not earlier or before.ends_with(_DEFINITE, start):
            continue
        if not again:
            m = _REPEAT.search(text) or LEADING_MORE.match(text)
            again.append(m.group(0).strip(" ,") if m else None)
        if again[0] is not None:
            return again[0]
        for s in earlier:
            if occasions and s.occasions and occasions != s.occasions and not _ARRIVAL.search(text):
                return sorted(occasions - s.occasions or occasions)[0]
            if objects and s.objects and not objects <= s.objects:
                return f"for {sorted(objects - s.objects)[0]}"
    return None
