"""The values a message gives: the customer's fields (entities) and the slots of a flow, as SetSlot and
CorrectSlot commands (one value to one slot, see `assign`; corrections by cue words or frame, see `digression`)."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from focal.flow_reading import current_step, flow_slots, missing_slot, slot_value_valid, value_valid
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Scenario, Slot
from focal.models.context import Command
from focal.models.session import Session
from focal.sensing import assign, counts, dates, digression, lexicon
from focal.sensing.extraction import coerce, extract
from focal.sensing.secrets_said import may_take
from focal.variables import known_variables, placeholders

GENERIC_NOUNS = {"number", "id", "value", "name", "code"}
FIGURE_TYPES = ("integer", "number", "money", "percentage", "date")  # slots a figure alone could be for


def slot_field(agent: AgentConfig, slot: Slot) -> ProfileFieldDefinition:
    """A slot is read with the field definition of the same name when there is one."""
    return agent.field(slot.name) or ProfileFieldDefinition(field_name=slot.name, field_type=slot.type)


def last_agent_message(session: Session) -> str:
    """What the agent said last ("" before it said anything)."""
    return next((h.text for h in reversed(session.history) if h.role == "assistant"), "")


def message_entities(agent: AgentConfig, text: str, today: date | None = None, asked: str | None = None) -> dict[str, Any]:
    """The values the message states for the fields a customer may give; `asked`: the variable the last turn
    asked for outside a flow, which the message answers (a bare "yes" is a value only for it)."""
    out = {}
    for f in agent.profile_field_definitions:
        if "message" not in f.sources or f.privileged or f.field_type == "string" and not f.pattern:
            continue
        value = extract(f, text, choosing=True, answering=f.field_name == asked, today=today)
        if value in (None, [], ""):
            continue
        value = coerce(f.field_type, value)
        if value_valid(f.validation_rules, value):  # a value failing the field's validation_rules is not taken
            out[f.field_name] = value
    return _without_secrets(agent, _without_parts(out, text), text)


def _within(part: str, whole: str, text: str) -> bool:
    """Every place `part` is written in `text` lies inside a place `whole` is written."""
    spans = [(m.start(), m.end()) for m in re.finditer(re.escape(whole), text)]
    starts = [m.start() for m in re.finditer(re.escape(part), text)]
    return bool(starts) and all(any(a <= s and s + len(part) <= b for a, b in spans) for s in starts)


def _as_written(value: Any) -> str | None:
    """How a value read from the message is written there: a text as it is, a number by its figures."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return format(value, "g") if isinstance(value, float) else str(value)
    return None


def _without_parts(values: dict[str, Any], text: str, wholes: dict[str, Any] | None = None) -> dict[str, Any]:
    """One value, one field: a value that is only ever a piece of another field's text value ("1001" of the
    phone number "555-010-1001" read by a four-digit pattern, an age of 10421 in the booking CR-10421) is no value
    of its own. `wholes`: the values it may be a piece of (default: `values`)."""
    texts = {name: v for name, v in (values if wholes is None else wholes).items() if isinstance(v, str) and v}
    return {name: v for name, v in values.items()
            if not ((part := _as_written(v)) and any(o != name and len(w) > len(part) and _within(part, w, text)
                                                     for o, w in texts.items()))}


def _without_secrets(agent: AgentConfig, values: dict[str, Any], text: str) -> dict[str, Any]:
    """No field or slot takes a value the customer labels as a secret ("my PIN is 4321": focal.sensing.secrets_said),
    except the one named for that secret, which the agent asks for on purpose (a PIN a tool checks)."""
    return {name: v for name, v in values.items() if may_take_secret(agent, name, v, text)}


def may_take_secret(agent: AgentConfig, name: str, value: object, text: str) -> bool:
    """The field or slot `name` may take `value` read from `text` (focal.sensing.secrets_said.may_take): a value the
    customer labels as a secret only when `name` or its field's display name is named for that secret."""
    field = agent.field(name)
    return may_take(value, text, name, field.display_name if field else None)


def awaited_slot(agent: AgentConfig, session: Session) -> Slot | None:
    """The slot the active flow is waiting for: the message answers its prompt."""
    step = current_step(agent, session)
    if step is None or session.flow_state != "waiting_for_slot":
        return None
    return missing_slot(step, known_variables(agent, session, None))


def _mentions(agent: AgentConfig, slot: Slot, text: str) -> bool:
    """Whether the message names the slot: "the booking reference", "the new address", "the address"."""
    field = agent.field(slot.name)
    names = {slot.name.replace("_", " ")}
    if field and field.display_name:
        words = field.display_name.lower().split()
        names.add(" ".join(words))
        if words[-1] not in GENERIC_NOUNS:
            names.add(words[-1])
    return any(re.search(rf"\b{re.escape(n)}\b", text, re.IGNORECASE) for n in names)


def unique_slots(agent: AgentConfig, scenario: Scenario | None) -> list[Slot]:
    """The flow's slots; a slot asked at several steps (again after a failed check) is one slot, read once."""
    return list({slot.name: slot for slot in reversed(flow_slots(agent, scenario))}.values())[::-1]


def _slot_value(agent: AgentConfig, slot: Slot, text: str, entities: dict[str, Any], answering: bool,
                today: date | None) -> Any:
    """The value the message gives one slot, read by the slot's type (or the field's entity already read)."""
    if answering and slot.type == "integer" and counts.asks_how_many(slot.prompt) and (n := counts.people(text)):
        return n  # "two adults and a child", "me and my wife" (a message that only lists people)
    value = entities.get(slot.name)
    if value is None:
        value = coerce(slot.type, extract(slot_field(agent, slot), text, choosing=True, answering=answering, today=today))
    return value


def _answers(slot: Slot, awaited: Slot | None, asked: bool) -> bool:
    """The message answers this slot's prompt: the flow waits for it, and for a yes/no slot the agent's last message
    asked something (a fallback text that replaced the blocked question did not: the customer never saw it)."""
    return awaited is not None and slot.name == awaited.name and (slot.type != "boolean" or asked)


def _typed_values(agent: AgentConfig, session: Session, text: str, entities: dict[str, Any], slots: list[Slot],
                  awaited: Slot | None, today: date | None) -> dict[str, Any]:
    """Each slot's value read on its own, before one value is kept for one slot."""
    asked = "?" in last_agent_message(session)
    corrected = _corrected_figure(agent, session, slots, text)
    values: dict[str, Any] = {}
    for slot in slots:
        answering = _answers(slot, awaited, asked) or (corrected is not None and slot.name == corrected.name)
        value = _slot_value(agent, slot, text, entities, answering, today)
        if value in (None, "", []):
            value = _day_alone(agent, session, slot, slots, text)
        if value not in (None, "", []):
            values[slot.name] = value
    return values


def _corrected_figure(agent: AgentConfig, session: Session, slots: list[Slot], text: str) -> Slot | None:
    """At a confirmation, a correction that gives a bare figure ("actually make that 20", "no, 20") is for the one
    figure the question shows: that slot reads the message as the answer to its own prompt (no currency needed).
    None when the question shows several figures, or the message is no correction."""
    step = current_step(agent, session)
    if step is None or session.flow_state != "confirming" or not digression.is_correction(text):
        return None
    shown = placeholders(step.confirmation_prompt or "")
    figures = [s for s in slots if s.name in shown and s.type in FIGURE_TYPES and s.type != "date"]
    return figures[0] if len(figures) == 1 else None


def _day_alone(agent: AgentConfig, session: Session, slot: Slot, slots: list[Slot], text: str) -> str | None:
    """At a confirmation, a day named alone ("no, the 5th", "mejor el día 5") is that day in the month of the date
    the question shows for this slot — when no other slot it shows could take a figure (then the day is no one's)."""
    step = current_step(agent, session)
    held = coerce("date", session.slots.get(slot.name)) if slot.type == "date" else None
    if step is None or session.flow_state != "confirming" or not isinstance(held, str):
        return None
    shown = placeholders(step.confirmation_prompt or "")
    if slot.name not in shown or any(s.name in shown and s.name != slot.name and s.type in FIGURE_TYPES for s in slots):
        return None
    try:
        month_of = date.fromisoformat(held)
    except ValueError:
        return None
    day = dates.day_alone(text, month_of)
    return day.isoformat() if day is not None else None


def readings(agent: AgentConfig, session: Session, text: str, entities: dict[str, Any], scenario: Scenario,
             notes: list[str], today: date | None) -> dict[str, Any]:
    """The value the message gives each slot of `scenario`, one value to one slot (`assign`)."""
    active = scenario.id == session.active_scenario_id
    awaited = awaited_slot(agent, session) if active else None
    held = session.slots if active else {}
    slots = unique_slots(agent, scenario)
    values = _typed_values(agent, session, text, entities, slots, awaited, today)
    values = _without_parts(values, text, {**entities, **values})  # the figures of an id are not a count
    values = _without_secrets(agent, values, text)
    dated = assign.date_slots(agent, slots, held, awaited, text, today, notes)
    if dated is not None:
        values = {s.name: values[s.name] for s in slots if s.type != "date" and s.name in values} | dated
    step = current_step(agent, session) if active and session.flow_state == "confirming" else None
    shown = frozenset(placeholders(step.confirmation_prompt or "")) if step is not None else frozenset()
    values = assign.one_slot_each(agent, slots, values, held, awaited, text, notes, shown)
    for slot in slots:  # a value the message gives another slot is not this one's, for the rest of the turn either
        if slot.name in entities and values.get(slot.name) != entities[slot.name]:
            del entities[slot.name]
    return values


def slot_commands(
    agent: AgentConfig, session: Session, text: str, entities: dict[str, Any], scenarios: list[Scenario], notes: list[str],
    today: date | None = None,
) -> list[Command]:
    """SetSlot for new values; CorrectSlot when the active flow already holds a different value and the
    message says it corrects it (correction language or frame, see `digression`), or when the customer
    asks to change a value without giving the new one ("wrong address")."""
    commands: list[Command] = []
    correcting = lexicon.is_correction(text)
    step = current_step(agent, session)
    for scenario in scenarios:
        active = scenario.id == session.active_scenario_id
        values = readings(agent, session, text, entities, scenario, notes, today)
        for slot in unique_slots(agent, scenario):
            value = values.get(slot.name)
            held = session.slots.get(slot.name) if active else None
            if value is not None:
                if held not in (None, "") and held != value:
                    if not (digression.is_correction(text) or digression.correction_frame(session, step, slot, text, value)):
                        notes.append(f"{slot.name} {value!r} is not a correction of {held!r} (no correction language or frame)")
                        continue
                    commands.append(Command(name="CorrectSlot", flow=scenario.id, slot=slot.name, value=value))
                else:
                    commands.append(Command(name="SetSlot", flow=scenario.id, slot=slot.name, value=value))
            elif active and correcting and held not in (None, "") and _mentions(agent, slot, text):
                commands.append(Command(name="CorrectSlot", flow=scenario.id, slot=slot.name, value=None))
    return _valued_corrections_win(agent, session, commands)


def _valued_corrections_win(agent: AgentConfig, session: Session, commands: list[Command]) -> list[Command]:
    """"His email is actually X": the new value corrects one slot; the others of its type the words mention are kept
    (no correction without a value of a slot of the type the message gave a value for)."""
    types = {s.name: s.type for s in flow_slots(agent, agent.scenario(session.active_scenario_id))}
    given = {types.get(c.slot or "") for c in commands if c.name == "CorrectSlot" and c.value not in (None, "")}
    return [c for c in commands
            if not (c.name == "CorrectSlot" and c.value in (None, "") and types.get(c.slot or "") in given)]


def fill_rest(agent: AgentConfig, session: Session, text: str, commands: list[Command]) -> list[Command]:
    """Several slots from one message: once typed slots took their values, a short remainder fills the flow's
    next empty free-text slot ("a large margherita": size "large", then the pizza "margherita")."""
    active = agent.scenario(session.active_scenario_id)
    step = current_step(agent, session)
    filled = [c for c in commands if c.name == "SetSlot" and c.flow == session.active_scenario_id]
    if not filled or not any(s.name == c.slot for c in filled for s in (step.slots if step else [])):
        return []
    slot = digression.free_text_slot(active, session, step, patterned_slots(agent, active))
    if slot is None or any(c.slot == slot.name for c in commands):
        return []
    rest = digression.remainder(text, [c.value for c in filled])
    if rest is None:
        return []
    rest = digression.without_label(rest, label_words(agent, slot))
    if not slot_value_valid(slot, rest) or not may_take_secret(agent, slot.name, rest, rest):
        return []
    return [Command(name="SetSlot", flow=session.active_scenario_id, slot=slot.name, value=rest)]


def patterned_slots(agent: AgentConfig, scenario: Scenario | None) -> frozenset[str]:
    """The flow's string slots whose field has a pattern: read by that pattern only, never as free text (a time of
    day "at 5pm" is its pattern's match; "C'est" left over beside a booking reference is none)."""
    return frozenset(s.name for s in flow_slots(agent, scenario) if s.type == "string" and slot_field(agent, s).pattern)


def label_words(agent: AgentConfig, slot: Slot) -> frozenset[str]:
    """The words that name a slot: its field's name and display name ("driver_surname", "Main driver's surname"), and
    the display name each translation gives it ("Nachname", "apellido")."""
    field = slot_field(agent, slot)
    translated = [texts.fields[slot.name].display_name or "" for texts in agent.translations.values()
                  if slot.name in texts.fields]
    words = re.findall(r"[^\W\d_]+", " ".join([slot.name.replace("_", " "), field.display_name or "", *translated]).lower())
    return frozenset(w for w in words if len(w) > 2 and w not in GENERIC_NOUNS)
