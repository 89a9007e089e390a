"""The model's reading merged into the offline one: it adds to it, it never replaces it.

- Intent: the model's intent is taken only when it is confident (≥ `MODEL_CONFIDENT`) and consistent with
  the message — one of the scenarios the offline reading placed nearest it (those the prompt showed), the
  flow its own slot values point to, one the message gives a value for (a slot of it set to a value written
  in the message), or the active flow. No intent (null, empty), a weak or a far one: the
  offline intent and its StartFlow stand.
- Dialogue acts: the offline ones stand; a model act that contradicts one is dropped. (A model's yes is
  further guarded by the sensor stage: `focal.sensing.acts.model_yes_doubt`.)
- Slot values and entities: a value the offline reader read stands against any other the model gives. A
  model value is kept when it follows from the message (`focal.sensing.grounding`); otherwise it is dropped —
  unless it is *inferred* by an accepted, confident reading for a slot of that very flow (a value only a model
  can read, "New York" as JFK), valid for its field, and not the answer to the slot the flow is asking for
  right now (that answer is in the customer's words or it is none). Inferred values are noted, and the
  confidence gate weighs them as read, not stated (`focal.dialogue.confidence`). Entities are never inferred.

Every value dropped or inferred is noted, with why; what of the model's reading was not taken is also listed
apart (`Context.set_aside`), so a conversation test can say why a scripted reading was not used.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any, Protocol

from focal.models.agent import AgentConfig, ProfileFieldDefinition
from focal.models.context import Command, Context
from focal.models.session import Session
from focal.sensing import extraction
from focal.sensing.grounding import grounding
from focal.sensing.provenance import customer_may_set
from focal.sensing.sensor_prompt import shown_scenarios

MODEL_CONFIDENT = 0.7  # a model intent below this is no reason to set the offline one aside
SLOT_COMMANDS = ("SetSlot", "CorrectSlot")
ACTS = ("AffirmConfirmation", "DenyConfirmation", "CancelFlow", "HumanHandoff")


class ModelReading(Protocol):  # focal.sensing.model_sensor.SensorOutput
    detected_intent: str | None
    intent_confidence: float
    extracted_entities: dict[str, Any]
    is_ambiguous: bool
    ambiguity_reason: str | None
    commands: list[Command]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def accepted_intent(agent: AgentConfig, session: Session, offline: Context, output: ModelReading,
                    notes: list[str], supported: set[str] | None = None) -> str | None:
    """The model's scenario id when its intent may set the offline one aside, else None (noted)."""
    intent = output.detected_intent
    if not intent:
        notes.append("the model read no intent: the offline reading stands")
        return None
    if output.intent_confidence < MODEL_CONFIDENT:
        notes.append(f"the model's intent {intent} ({output.intent_confidence:.2f} < {MODEL_CONFIDENT:.2f}) "
                     "is not confident: the offline reading stands")
        return None
    if intent == session.active_scenario_id:
        return intent
    shown = [s.id for s in shown_scenarios(agent, session, offline)]
    read = {c.flow for c in offline.commands if c.flow}  # the flow the offline reading's own values point to
    if intent not in shown and intent not in read and intent not in (supported or set()):
        notes.append(f"the model's intent {intent} is neither among the {len(shown)} scenarios the offline reading "
                     "placed nearest the message nor a flow the message gives a value for: the offline reading stands")
        return None
    return intent


def supported_flows(agent: AgentConfig, session: Session, text: str, offline: Context, output: ModelReading,
                    today: date | None) -> set[str]:
    """The scenarios the message gives a value for: a slot of theirs the model set to a value in the message."""
    values = [c.value for c in offline.commands if c.name in SLOT_COMMANDS] + list(offline.extracted_entities.values())
    out: set[str] = set()
    for cmd in output.commands:
        scenario = agent.scenario(cmd.flow)
        if cmd.name not in SLOT_COMMANDS or scenario is None or scenario.id in out:
            continue
        if cmd.slot in {slot.name for step in scenario.steps for slot in step.slots} and grounding(
                agent, session, cmd.slot, cmd.value, text, values, today) is not None:
            out.add(scenario.id)
    return out


def _valid_for(f: ProfileFieldDefinition | None, value: Any) -> bool:
    """An inferred value must be one its field can hold: an allowed value, a pattern's shape, its type."""
    if f is None:
        return True
    items = value if isinstance(value, list) else [value]
    for item in items:
        if f.allowed_values and extraction.allowed_value(f, item) is None:
            return False
        if f.pattern and not f.allowed_values:  # an enum's pattern anchors where it is read, not its values
            compiled = extraction.field_pattern(f.pattern, ignore_case=True)
            try:
                if compiled is None or compiled.search(str(item)) is None:
                    return False
            except extraction.PatternUnread:
                return False
        if not isinstance(value, list) and extraction.coerce(f.field_type, item) is None:
            return False
    return True


def _inferable(agent: AgentConfig, session: Session, flow: str | None, cmd: Command) -> str | None:
    """Why the model may infer this slot value (None: it may not)."""
    scenario = agent.scenario(flow)
    if scenario is None or cmd.flow not in (None, flow):
        return None
    if cmd.slot not in {slot.name for step in scenario.steps for slot in step.slots}:
        return None
    f = agent.field(cmd.slot or "")
    step = agent.step(session.active_scenario_id, session.active_step_id)
    asked = session.active_scenario_id == flow and step is not None and cmd.slot in {s.name for s in step.slots}
    if asked and not (f is not None and f.allowed_values):
        return None  # the answer to the prompt on screen is in the customer's words, or it is no answer
    if not _valid_for(f, cmd.value):
        return None
    return f"{'a choice among its allowed values ' if asked else ''}inferred by the confident reading of {flow}"


def merge_readings(agent: AgentConfig, session: Session, text: str, offline: Context, output: ModelReading,
                   today: date | None = None) -> Context:
    """The offline reading with what the model's reading may add to it (see the module)."""
    notes: list[str] = []
    set_aside: list[str] = []  # what of the model's reading is not taken, and why (also in notes)

    def drop(note: str) -> None:
        notes.append(note)
        set_aside.append(note)

    flow = accepted_intent(agent, session, offline, output, notes,
                           supported_flows(agent, session, text, offline, output, today))
    if flow is None and output.detected_intent:
        set_aside += notes  # the model's intent did not set the offline one aside: why
    offline_slots = {c.slot: c.value for c in offline.commands if c.name in SLOT_COMMANDS}
    offline_values = [*offline_slots.values(), *offline.extracted_entities.values()]
    offline_acts = {c.name for c in offline.commands if c.name in ACTS}
    commands = list(offline.commands)
    used = False
    if flow is not None:
        stale = [c for c in commands if c.name == "StartFlow" and c.flow != flow]
        if stale:
            notes.append(f"the model's confident {flow} set aside the offline StartFlow {stale[0].flow}")
        moved = {c.flow for c in stale}  # the offline values stand, in the flow taken
        commands = [c.model_copy(update={"flow": flow}) if c.name in SLOT_COMMANDS and c.flow in moved else c
                    for c in commands if c not in stale]
        used = True
    for cmd in output.commands:
        if cmd.name == "StartFlow":
            if flow is not None and cmd.flow == flow and session.active_scenario_id != flow and not any(
                    c.name == "StartFlow" and c.flow == flow for c in commands):
                value = float(cmd.value) if isinstance(cmd.value, int | float) else output.intent_confidence
                commands.append(cmd.model_copy(update={"value": min(value, output.intent_confidence)}))
            elif cmd.flow != flow:
                (drop if flow is not None else notes.append)(f"the model's StartFlow {cmd.flow} dropped: not the intent taken")
        elif cmd.name in SLOT_COMMANDS:
            if _slot(agent, session, text, cmd, flow, offline_slots, offline_values, commands, notes, drop, today):
                used = True
        elif cmd.name in ACTS:
            if offline_acts and cmd.name not in offline_acts:
                drop(f"the model's {cmd.name} dropped: the offline reading heard {sorted(offline_acts)[0]}")
            elif cmd.name not in offline_acts:
                commands.append(cmd)
                used = True
        elif not any(c.name == cmd.name for c in commands):  # ChitChat, Clarify
            if cmd.flow is None or agent.scenario(cmd.flow) is not None:
                commands.append(cmd)
                used = True
    entities = dict(offline.extracted_entities)
    for cmd in output.commands:  # an offline value the model gives as the customer wrote it (see `_slot`)
        name, value = cmd.slot or "", cmd.value
        if (cmd.name in SLOT_COMMANDS and isinstance(value, str) and value in text and name in entities
                and str(entities[name]) not in text and str(entities[name]).casefold() == value.casefold()):
            entities[name] = value
    for name, value in output.extracted_entities.items():
        if name in entities or value in (None, "", []):
            continue
        if not customer_may_set(agent, name):
            entities[name] = value  # not the customer's to set: focal.sensing.provenance drops it and says so
            continue
        why = grounding(agent, session, name, value, text, offline_values, today)
        if why:
            entities[name] = value
            used = True
        else:
            drop(f"the model's {name}={_short(value)} dropped: not in the message (made up)")
    ambiguous, reason = offline.is_ambiguous, offline.ambiguity_reason
    if ambiguous and flow is not None:
        ambiguous, reason = False, None
        notes.append(f"the offline near-tie resolved by the model's confident {flow}")
    if output.is_ambiguous and not ambiguous and not offline.commands and flow is None:
        ambiguous, reason = True, output.ambiguity_reason or "the model found the message ambiguous"
        used = True
    if not used and not set_aside:
        set_aside.append("nothing of the model's reading was taken")
    acts_taken = any(c.name in ACTS and c.name not in offline_acts for c in commands)
    merged = offline.model_copy(update={
        "commands": commands, "extracted_entities": entities, "is_ambiguous": ambiguous, "ambiguity_reason": reason,
        "source": "model",
        "intent_confidence": output.intent_confidence if flow is not None or acts_taken else offline.intent_confidence,
        "notes": [*offline.notes, *notes, *([] if used else ["nothing of the model's reading was taken"])],
        "set_aside": [*offline.set_aside, *set_aside],
    })
    if flow is not None:
        merged.detected_intent = next((s.intent_label or s.id for s in agent.scenarios if s.id == flow), flow)
    return merged


def _slot(agent: AgentConfig, session: Session, text: str, cmd: Command, flow: str | None,
          offline_slots: dict[str | None, Any], offline_values: list[Any], commands: list[Command], notes: list[str],
          drop: Callable[[str], None], today: date | None) -> bool:
    """Add the model's slot command to `commands` when it may stand; `drop` says why when it may not."""
    what = f"the model's {cmd.slot}={_short(cmd.value)}"
    if not customer_may_set(agent, cmd.slot):
        commands.append(cmd)  # not the customer's to set: focal.sensing.provenance drops it and says so
        return False
    if cmd.slot in offline_slots:
        if grounding(agent, session, cmd.slot, cmd.value, text, [offline_slots[cmd.slot]], today) is None:
            drop(f"{what} dropped: the offline reading gave {_short(offline_slots[cmd.slot])}")
        elif isinstance(cmd.value, str) and cmd.value in text and str(offline_slots[cmd.slot]) not in text:
            # the same value, as the customer wrote it ("sara_doe_4962", which the offline id reader capitalises)
            at = next(i for i, c in enumerate(commands) if c.name in SLOT_COMMANDS and c.slot == cmd.slot)
            commands[at] = commands[at].model_copy(update={"value": cmd.value})
        return False
    why = grounding(agent, session, cmd.slot, cmd.value, text, offline_values, today)
    if why is None:
        why = _inferable(agent, session, flow, cmd)
        if why is None:
            drop(f"{what} dropped: not in the message (made up)")
            return False
        notes.append(f"{what} kept: {why}, not in the message's words")
    if any(c.name in SLOT_COMMANDS and c.slot == cmd.slot for c in commands):
        return False
    commands.append(cmd)
    return True
