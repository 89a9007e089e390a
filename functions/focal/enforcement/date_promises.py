"""A date a draft promises only vaguely ("by the end of April", "in about two months", "a finales de abril"), for a
date field read from answers (`sources: [response]`).

The exact reader (focal.sensing.dates, through focal.sensing.extraction) reads a day; a phrase that names no one day
used to leave the field absent, so it fell back to its default and a rule such as `promised <= latest_slot` passed.
A date field read from the answer is the date the answer states (the exact reader takes any date the draft writes,
too), so every vague date the draft names is read (focal.sensing.date_ranges) and its latest day is the value — the
later of it and the exact date read, for a "not later than" rule the later day is the one that counts. When a
phrase's latest day cannot be formed (no turn date, a count in words the reader does not know), the field is
uncertain: a rule that reads it cannot be verified and fails closed, never passes on the default. A phrase in a
negated clause is read too (focal.sensing.date_ranges): "no later than the end of April" is a promise.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from focal.sensing.date_ranges import vague_dates


@dataclass(frozen=True)
class DatePromise:
    latest: str | None = None   # the latest day the draft's vague dates allow, ISO
    unknown: str | None = None  # why the date promised cannot be read (then `latest` is None)


def vague_promise(draft: str, languages: tuple[str, ...], today: date | None, exact: str | None) -> DatePromise | None:
    """What the vague dates of `draft` promise, with `exact` the day the exact reader read (ISO, or None); None when
    the draft names no vague date."""
    ranges = vague_dates(draft, languages, today)
    if not ranges:
        return None
    unread = next((r for r in ranges if r.latest is None), None)
    if unread is not None:
        why = "without the turn's date" if today is None else "from the words it uses"
        return DatePromise(unknown=f"the answer names a date (\"{unread.phrase}\") whose latest day cannot be read {why}")
    latest = max(r.latest.isoformat() for r in ranges if r.latest is not None)
    return DatePromise(latest=max(latest, exact) if exact else latest)
