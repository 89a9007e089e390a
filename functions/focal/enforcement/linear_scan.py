"""Helpers that keep the draft reader linear in the length of the draft (focal.enforcement.draft_reading).

- `Suffixes`: what the words just before a point say. The reader asks, amount by amount and cue by cue, whether
  the text *just before* it ends in a refusal ("I can't …"), a report ("you asked for …"), a threshold ("above
  …"), a base ("… of your") or a definite word ("the …"): patterns anchored at the end (`…$`). Searching the whole
  prefix each time costs the prefix's length, so a clause with many amounts was read in quadratic time. Every
  such pattern spans a bounded number of whitespace runs (the longest, `amount_cues.REPORTED`, a head of two
  words and at most 40 more characters), so a match that ends at a point starts within the `WORDS`
  whitespace-separated words before it: `ends_with` searches only those, on the unsliced text with `endpos`
  (what the pattern sees around the window is the same text as in the prefix), and finds a match exactly when
  searching the prefix does.
- `CloseValues`: amounts within half a cent of one another (`close`), found by value instead of by comparing
  every pair (the amounts promised so far, where each was promised).
- `inside`, `overlaps`: a position or a span against spans in order, by bisection.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable

WORDS = 48  # more whitespace runs than any suffix pattern of the reader spans
_WORD = re.compile(r"\S+")


class Suffixes:
    """A text's word starts, found once; `ends_with` searches an end-anchored pattern in the words before a point."""

    def __init__(self, text: str):
        self.text = text
        self._starts = [m.start() for m in _WORD.finditer(text)]

    def window(self, end: int) -> int:
        """Where a match that ends at `end` and spans fewer than `WORDS` whitespace runs can start, at the earliest."""
        before = bisect_left(self._starts, end)  # words that start before `end`
        return self._starts[before - WORDS] if before > WORDS else 0

    def ends_with(self, pattern: re.Pattern[str], end: int) -> bool:
        """`pattern.search(text[:end])` for a pattern anchored at the end (`$`) that spans fewer than `WORDS` runs."""
        return pattern.search(self.text, self.window(end), end) is not None


def close(a: float, b: float) -> bool:
    return abs(a - b) < 0.005


def overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) overlaps one of `spans` (in order, none overlapping another)."""
    before = bisect_left(spans, (end,))  # the spans that start before `end`; the last of them ends last
    return before > 0 and start < spans[before - 1][1]


def inside(spans: list[tuple[int, int]], position: int) -> bool:
    """Whether `position` is inside one of `spans` (in order, none overlapping another)."""
    at = bisect_right(spans, (position, math.inf)) - 1  # the last span that starts at or before `position`
    return at >= 0 and position < spans[at][1]


class CloseValues:
    """Values added in order, found again by any value within half a cent of them (`close`) in a few dictionary
    look-ups: each is kept under its half-cent step, and only the steps beside a value's are compared exactly."""

    def __init__(self, values: Iterable[float] = ()):
        self._steps: dict[int, list[tuple[int, float]]] = {}
        self._huge: list[tuple[int, float]] = []  # beyond any step (above 1e306): compared one by one
        self._count = 0
        for value in values:
            self.add(value)

    def add(self, value: float) -> None:
        step = _step(value)
        if step is not None:
            self._steps.setdefault(step, []).append((self._count, value))
        elif math.isfinite(value):  # an infinite or undefined value is close to nothing, itself included
            self._huge.append((self._count, value))
        self._count += 1

    def close_to(self, value: float) -> list[tuple[int, float]]:
        """(rank added, value) of every value close to `value`, in the sequence added."""
        step = _step(value)
        near = [] if step is None else [kept for s in range(step - 2, step + 3) for kept in self._steps.get(s, ())]
        return sorted(kept for kept in (*near, *self._huge) if close(kept[1], value))

    def has_close(self, value: float) -> bool:
        return bool(self.close_to(value))


def _step(value: float) -> int | None:
    """The half-cent step of a value; two values closer than half a cent are at most two steps apart."""
    scaled = value * 200
    return math.floor(scaled) if math.isfinite(scaled) else None
