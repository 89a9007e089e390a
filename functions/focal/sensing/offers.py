"""Answers to the agent's own questions: which offered option a message picks.

Every question the agent asks outside a confirmation step is stored as an `Offer` (resume a flow,
start one, choose between the scenarios of a clarification). The next message answers it with
yes / no, an ordinal or number ("the second one", "2", "option 3", "the last"), or the option's
name ("the rebooking one"). Nothing here knows a domain: names are the agent's scenario names.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from focal.models.agent import AgentConfig, Scenario
from focal.models.context import Context
from focal.models.session import Offer, Session
from focal.sensing.provenance import customer_may_set
from focal.sensing.slot_reading import readings, slot_commands, slot_field, unique_slots

_TYPED_FORMS = frozenset({"date", "money", "enum"})
MAX_OPTIONS = 3  # the scenarios one question offers to choose between, at most (a clarification, a `choose` offer)
_ORDINALS = {
    "first": 0, "1st": 0, "one": 0, "1": 0,
    "second": 1, "2nd": 1, "two": 1, "2": 1,
    "third": 2, "3rd": 2, "three": 2, "3": 2,
    "fourth": 3, "4th": 3, "four": 3, "4": 3,
}
_ORDINAL = re.compile(
    r"^\s*(?:(?:the|option|number|no\.?|#)\s*)*(first|1st|second|2nd|third|3rd|fourth|4th|last|one|two|three|four|[1-4])"
    r"(?:\s+(?:one|option|please|thanks))*[\s.!]*$"
    r"|\b(?:the\s+)?(first|second|third|fourth|last)\s+(?:one|option)\b"
    r"|\boption\s*(?:number\s*)?([1-4])\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9]+")
_COMMON = frozenset(
    "a an the my your our of to for and or with about on in at by from this that it its is be do "
    "check change get make see some any new".split()
)


def _ordinal(text: str, count: int) -> int | None:
    m = _ORDINAL.search(text)
    if not m:
        return None
    word = next(g for g in m.groups() if g).lower()
    index = count - 1 if word == "last" else _ORDINALS.get(word)
    return index if index is not None and index < count else None


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower().replace("'s", "")) if len(w) > 2 and w not in _COMMON}


def _by_name(agent: AgentConfig, options: list[str], text: str) -> int | None:
    """The option whose name (or intent label) shares words with the message that no other option has."""
    said = _content(text)
    words = []
    for sid in options:
        scenario = agent.scenario(sid)
        label = f"{scenario.name} {scenario.intent_label or scenario.id}".replace("_", " ") if scenario else sid
        words.append(_content(label))
    hits = []
    for i, own in enumerate(words):
        others = set().union(*(w for j, w in enumerate(words) if j != i)) if len(words) > 1 else set()
        hits.append(len((own - others) & said))
    best = max(hits, default=0)
    return hits.index(best) if best > 0 and hits.count(best) == 1 else None


def pick(agent: AgentConfig, offer: Offer, text: str, acts: dict[str, str]) -> tuple[int | None, str]:
    """(index of the chosen option or None, how) — "deny" as how when the customer declines."""
    options = offer.choices()
    if (index := _ordinal(text, len(options))) is not None:
        return index, f"option {index + 1} by number"
    if offer.kind == "choose" and len(options) > 1 and (index := _by_name(agent, options, text)) is not None:
        return index, f"option {index + 1} by name"
    if "deny" in acts:
        return None, "deny"
    if "affirm" in acts:
        return 0, "yes: the first option" if len(options) > 1 else "yes"
    return None, ""


def picked_by_value(agent: AgentConfig, session: Session, offer: Offer, text: str, entities: dict[str, Any],
                    today: date | None) -> int | None:
    """The option of a clarification ("do you mean disputing a charge?") that an answer picks by giving, instead of a
    yes, a value only that option's flow asks for, in the form its field defines: a reference matching the field's
    `pattern`, a date, an amount, one of its values. A free-text value could belong anywhere, so it picks nothing."""
    if offer.kind != "choose":
        return None
    picked: list[tuple[int, dict[str, Any]]] = []
    for index, scenario_id in enumerate(offer.choices()):
        scenario = agent.scenario(scenario_id)
        if scenario is None:
            continue
        values = {name: value for name, value in readings(agent, session, text, dict(entities), scenario, [], today).items()
                  if value not in (None, "") and customer_may_set(agent, name)}
        if any(_typed(agent, scenario, name) for name in values):
            picked.append((index, values))
    if len(picked) != 1:
        return None
    index, values = picked[0]
    offer.values[offer.choices()[index]] = values  # the flow starts with them, through its own checks (as a yes does)
    return index


def _typed(agent: AgentConfig, scenario: Scenario, slot_name: str) -> bool:
    slot = next((s for s in unique_slots(agent, scenario) if s.name == slot_name), None)
    field = slot_field(agent, slot) if slot is not None else None
    return field is not None and (bool(field.pattern) or field.field_type in _TYPED_FORMS)


def hold_values(agent: AgentConfig, session: Session, context: Context, today: date | None = None) -> None:
    """Keep on the open offer the slot values the customer's message gave for each offered scenario ("cancel
    A-1 from March 3?" answered with "did you mean …?"), as the turn's reading found them: a yes starts the flow
    with them instead of asking again. Only what the customer's words may set is kept (focal.sensing.provenance);
    each is set later through the flow's own checks, never directly."""
    offer = session.offer
    if offer is None or offer.kind == "resume":
        return
    notes: list[str] = []
    for scenario_id in offer.choices():
        scenario = agent.scenario(scenario_id)
        if scenario is None:
            continue
        found = slot_commands(agent, session, context.message, context.extracted_entities, [scenario], notes, today)
        values = {c.slot: c.value for c in found
                  if c.name == "SetSlot" and c.slot and c.value not in (None, "") and customer_may_set(agent, c.slot)}
        if values:
            offer.values[scenario_id] = values
    offer.read_by = context.source if offer.values else None
