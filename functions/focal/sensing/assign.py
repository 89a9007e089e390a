"""Which slot a value goes to when a flow has several slots of its type.

One value of a type goes to one slot: the one the message names ("the check-out date is …", a field's
extraction hint right before the value: "until March 5"), else the one whose prompt was asked (the
awaited slot), else the first one still empty in the flow's sequence; when every such slot is filled, the
one already holding that value (a repeat), else none (which one would change is not said). Never to every
slot of the type, and never a correction of a filled slot the message does not name.

Several dates in one message fill the flow's date slots one after the other, as written ("from March 3 to March 5",
"checking in March 3 and out March 5"), a date right after a slot's name or hint going to that slot.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from focal.models.agent import AgentConfig, Slot
from focal.sensing.locale_reading import answer_dates

# Words between a slot's name or hint and its value: "check-out on the 5th", "arriving on March 3".
_LINK = r"(?:\s|,|:|-|\b(?:on|the|of|at|is|be|will|would|date|day|by|in)\b)*$"


def names(agent: AgentConfig, slot: Slot) -> list[str]:
    """How a message names the slot: its name ("check in", "check-in"), its field's display name."""
    out = {slot.name.replace("_", " "), slot.name.replace("_", "-")}
    field = agent.field(slot.name)
    if field is not None and field.display_name:
        out.add(" ".join(field.display_name.lower().split()))
    return sorted(out)


def _hints(agent: AgentConfig, slot: Slot) -> list[str]:
    field = agent.field(slot.name)
    return names(agent, slot) + ([h.lower() for h in field.extraction_hints] if field else [])


def named(agent: AgentConfig, slot: Slot, text: str) -> bool:
    return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text, re.IGNORECASE) for n in names(agent, slot))


def anchored(agent: AgentConfig, group: list[Slot], before: str) -> Slot | None:
    """The one slot of `group` whose name or hint ends the text right before a value ("until March 5")."""
    hits = [s for s in group
            if any(re.search(rf"(?<!\w){re.escape(h)}{_LINK}", before, re.IGNORECASE) for h in _hints(agent, s))]
    return hits[0] if len(hits) == 1 else None


def _empty(held: dict[str, Any], slot: Slot) -> bool:
    return held.get(slot.name) in (None, "")


def _targets(group: list[Slot], held: dict[str, Any], awaited: Slot | None) -> list[Slot]:
    """The empty slots of `group` in the flow's sequence, from the awaited one when it is one of them."""
    empty = [s for s in group if _empty(held, s)]
    if awaited is not None and awaited.name in {s.name for s in empty}:
        i = next(i for i, s in enumerate(empty) if s.name == awaited.name)
        return empty[i:] + empty[:i]
    return empty


def _said(agent: AgentConfig, group: list[Slot], text: str) -> list[Slot]:
    """The slots of `group` the message names by a name of their own: "email" names neither the email on file nor the
    recipient's email when both are in the group ("his email is actually …"); "recipient's email" names one."""
    out = []
    for slot in group:
        others = " | ".join(n for o in group if o is not slot for n in names(agent, o))
        own = [n for n in names(agent, slot) if not re.search(rf"(?<!\w){re.escape(n)}(?!\w)", others, re.IGNORECASE)]
        if any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text, re.IGNORECASE) for n in own):
            out.append(slot)
    return out


def one_slot_each(agent: AgentConfig, slots: list[Slot], values: dict[str, Any], held: dict[str, Any],
                  awaited: Slot | None, text: str, notes: list[str], shown: frozenset[str] = frozenset()) -> dict[str, Any]:
    """`values` (slot name → the value read for it) with a value read for several slots of one type kept for one.
    `shown`: the slots the confirmation on screen shows — a value its words do not place goes to the one of them the
    customer sees, never to a slot the question does not show."""
    groups: dict[tuple[str, str], list[Slot]] = {}
    for slot in slots:
        if values.get(slot.name) not in (None, "", []):
            groups.setdefault((slot.type, repr(values[slot.name])), []).append(slot)
    out = dict(values)
    for group in groups.values():
        if len(group) < 2:
            continue
        value = values[group[0].name]
        said = _said(agent, group, text)
        on_screen = [s for s in group if s.name in shown]
        targets = _targets(group, held, awaited)
        keep = (said[0] if len(said) == 1 else on_screen[0] if len(on_screen) == 1 else targets[0] if targets
                else next((s for s in group if held.get(s.name) == value), None))
        for slot in group:
            if slot is not keep:
                out.pop(slot.name, None)
        notes.append(f"one value for {len(group)} {group[0].type} slots: {value!r} is for "
                     f"{keep.name if keep else 'none of them (which one is not said)'}")
    return out


def date_slots(agent: AgentConfig, slots: list[Slot], held: dict[str, Any], awaited: Slot | None, text: str,
               today: date | None, notes: list[str]) -> dict[str, Any] | None:
    """The values of the flow's date slots when it has two or more (None otherwise: each slot reads its own).
    Each date the message states goes to the slot whose name or hint comes right before it; the others, first
    to last, to the remaining slots when there are as many, else to the empty ones from the
    awaited one (one date answers the prompt asked, or fills the first empty slot)."""
    group = [s for s in slots if s.type == "date"]
    if len(group) < 2:
        return None
    answering = awaited is not None and awaited.name in {s.name for s in group}
    sides = {f.date_side if (f := agent.field(s.name)) is not None else "either" for s in group}
    text, found = answer_dates(text, today, answering, sides.pop() if len(sides) == 1 else "either")
    if not found:
        return {}
    out, rest = _anchored_dates(agent, group, text, found)
    targets = _rest_targets(agent, [s for s in group if s.name not in out], rest, held, awaited, text)
    if len(rest) > len(targets):
        notes.append(f"{len(found)} date(s) for {len(group)} date slots: which slot each is for is not said")
        return {}
    out.update({slot.name: value for slot, value in zip(targets, rest, strict=False)})
    notes.append("dates to slots: " + ", ".join(f"{k} {v}" for k, v in out.items()))
    return out


def _anchored_dates(agent: AgentConfig, group: list[Slot], text: str,
                    found: list[tuple[int, int, str]]) -> tuple[dict[str, Any], list[str]]:
    """The dates right after a slot's name or hint, by slot; and the rest, first to last."""
    out: dict[str, Any] = {}
    rest: list[str] = []
    previous_end = 0
    for start, end, value in found:
        slot = anchored(agent, [s for s in group if s.name not in out], text[previous_end:start])
        if slot is not None:
            out[slot.name] = value
        else:
            rest.append(value)
        previous_end = end
    return out, rest


def _rest_targets(agent: AgentConfig, free: list[Slot], rest: list[str], held: dict[str, Any], awaited: Slot | None,
                  text: str) -> list[Slot]:
    """The slots the dates no name anchors go to, in order: the one slot the message names for a single date, every
    free slot when there are as many dates, else the empty ones from the awaited one (or the slot already holding
    a single date repeated)."""
    said = [s for s in free if named(agent, s, text)]
    if len(rest) == 1 and len(said) == 1:
        return said  # "December 2 for the check-out"
    if len(rest) == len(free) and len(rest) > 1:
        return free
    targets = _targets(free, held, awaited)
    if len(rest) == 1 and not targets:
        targets = [s for s in free if held.get(s.name) == rest[0]][:1]  # a repeat of a held date
    return targets
