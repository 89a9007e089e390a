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
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from focal.models.agent import AgentConfig, ProfileFieldDefinition
from focal.models.context import Command, Context
from focal.models.session import Session
from focal.sensing import extraction
from focal.sensing.acts import asks_about_cancelling
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


@dataclass
class _Merge:
    """The merged reading as it is built: the offline reading's commands with what the model's adds, and what of
    the model's reading was taken (`used`) or set aside, and why."""

    agent: AgentConfig
    session: Session
    text: str
    today: date | None
    offline: Context
    output: ModelReading
    flow: str | None  # the model's intent, when it may set the offline one aside
    notes: list[str]
    set_aside: list[str]  # what of the model's reading is not taken, and why (also in notes)
    commands: list[Command] = field(init=False)  # from the offline reading's
    entities: dict[str, Any] = field(init=False)
    ambiguous: bool = field(init=False)
    reason: str | None = field(init=False)
    used: bool = False

    def __post_init__(self) -> None:
        self.commands = list(self.offline.commands)
        self.entities = dict(self.offline.extracted_entities)
        self.ambiguous, self.reason = self.offline.is_ambiguous, self.offline.ambiguity_reason

    @property
    def offline_slots(self) -> dict[str | None, Any]:
        return {c.slot: c.value for c in self.offline.commands if c.name in SLOT_COMMANDS}

    @property
    def offline_values(self) -> list[Any]:
        return [*self.offline_slots.values(), *self.offline.extracted_entities.values()]

    @property
    def offline_acts(self) -> set[str]:
        return {c.name for c in self.offline.commands if c.name in ACTS}

    def drop(self, note: str) -> None:
        self.notes.append(note)
        self.set_aside.append(note)


def _begin(agent: AgentConfig, session: Session, text: str, offline: Context, output: ModelReading,
           today: date | None) -> _Merge:
    """The merge, with the model's intent judged first (why it did not set the offline one aside is set aside)."""
    notes: list[str] = []
    flow = accepted_intent(agent, session, offline, output, notes,
                           supported_flows(agent, session, text, offline, output, today))
    set_aside = list(notes) if flow is None and output.detected_intent else []
    return _Merge(agent=agent, session=session, text=text, today=today, offline=offline, output=output, flow=flow,
                  notes=notes, set_aside=set_aside)


def _take_intent(m: _Merge) -> None:
    """The model's confident intent sets aside the offline StartFlow of another flow; the offline values move to it."""
    if m.flow is None:
        return
    stale = [c for c in m.commands if c.name == "StartFlow" and c.flow != m.flow]
    if stale:
        m.notes.append(f"the model's confident {m.flow} set aside the offline StartFlow {stale[0].flow}")
    moved = {c.flow for c in stale}  # the offline values stand, in the flow taken
    m.commands = [c.model_copy(update={"flow": m.flow}) if c.name in SLOT_COMMANDS and c.flow in moved else c
                  for c in m.commands if c not in stale]
    m.used = True


def _model_start(m: _Merge, cmd: Command) -> None:
    """The model's StartFlow stands for the intent taken (at most its confidence); another flow's is dropped."""
    flow = m.flow
    if flow is not None and cmd.flow == flow and m.session.active_scenario_id != flow and not any(
            c.name == "StartFlow" and c.flow == flow for c in m.commands):
        value = float(cmd.value) if isinstance(cmd.value, int | float) else m.output.intent_confidence
        m.commands.append(cmd.model_copy(update={"value": min(value, m.output.intent_confidence)}))
    elif cmd.flow != flow:
        (m.drop if flow is not None else m.notes.append)(f"the model's StartFlow {cmd.flow} dropped: not the intent taken")


def _not_a_stop(m: _Merge) -> str | None:
    """Why the message stops nothing, whatever a model read: it asks about cancelling, or corrects a value of the
    active flow (the flow confirms the new value again). None: a model's stop may stand."""
    if asks_about_cancelling(m.text):
        return "the message asks about cancelling, it gives no instruction to stop"
    active = m.session.active_scenario_id
    if active and any(c.name == "CorrectSlot" and c.flow == active and c.value not in (None, "") for c in m.commands):
        return "the message corrects a value of the active flow"
    return None


def _model_act(m: _Merge, cmd: Command) -> None:
    """A model act is added when the offline reading heard none; one contradicting an offline act is dropped, and
    so is a stop the message does not give (`_not_a_stop`)."""
    offline_acts = m.offline_acts
    if cmd.name == "CancelFlow" and "CancelFlow" not in offline_acts and (why := _not_a_stop(m)) is not None:
        m.drop(f"the model's CancelFlow dropped: {why}")
    elif offline_acts and cmd.name not in offline_acts:
        m.drop(f"the model's {cmd.name} dropped: the offline reading heard {sorted(offline_acts)[0]}")
    elif cmd.name not in offline_acts:
        m.commands.append(cmd)
        m.used = True


def _model_other(m: _Merge, cmd: Command) -> None:
    """ChitChat, Clarify: added once, for no flow or a flow the agent has."""
    if any(c.name == cmd.name for c in m.commands):
        return
    if cmd.flow is None or m.agent.scenario(cmd.flow) is not None:
        m.commands.append(cmd)
        m.used = True


def _model_slot(m: _Merge, cmd: Command) -> None:
    """The model's slot command, when it may stand; `drop` says why when it may not."""
    what = f"the model's {cmd.slot}={_short(cmd.value)}"
    if not customer_may_set(m.agent, cmd.slot):
        m.commands.append(cmd)  # not the customer's to set: focal.sensing.provenance drops it and says so
        return
    offline_slots = m.offline_slots
    if cmd.slot in offline_slots:
        _offline_slot_stands(m, cmd, offline_slots[cmd.slot], what)
        return
    why = grounding(m.agent, m.session, cmd.slot, cmd.value, m.text, m.offline_values, m.today)
    if why is None:
        why = _inferable(m.agent, m.session, m.flow, cmd)
        if why is None:
            m.drop(f"{what} dropped: not in the message (made up)")
            return
        m.notes.append(f"{what} kept: {why}, not in the message's words")
    if any(c.name in SLOT_COMMANDS and c.slot == cmd.slot for c in m.commands):
        return
    m.commands.append(cmd)
    m.used = True


def _offline_slot_stands(m: _Merge, cmd: Command, offline_value: Any, what: str) -> None:
    """A slot the offline reader read keeps its value; the model's same value may only give its spelling."""
    if grounding(m.agent, m.session, cmd.slot, cmd.value, m.text, [offline_value], m.today) is None:
        m.drop(f"{what} dropped: the offline reading gave {_short(offline_value)}")
    elif isinstance(cmd.value, str) and cmd.value in m.text and str(offline_value) not in m.text:
        # the same value, as the customer wrote it ("sara_doe_4962", which the offline id reader capitalises)
        at = next(i for i, c in enumerate(m.commands) if c.name in SLOT_COMMANDS and c.slot == cmd.slot)
        m.commands[at] = m.commands[at].model_copy(update={"value": cmd.value})


def _model_commands(m: _Merge) -> None:
    """Each of the model's commands, by its kind."""
    for cmd in m.output.commands:
        if cmd.name == "StartFlow":
            _model_start(m, cmd)
        elif cmd.name in SLOT_COMMANDS:
            _model_slot(m, cmd)
        elif cmd.name in ACTS:
            _model_act(m, cmd)
        else:
            _model_other(m, cmd)


def _customer_spelling(m: _Merge) -> None:
    """An offline entity the model gives as the customer wrote it (see `_offline_slot_stands`) takes that spelling."""
    for cmd in m.output.commands:
        name, value = cmd.slot or "", cmd.value
        if (cmd.name in SLOT_COMMANDS and isinstance(value, str) and value in m.text and name in m.entities
                and str(m.entities[name]) not in m.text and str(m.entities[name]).casefold() == value.casefold()):
            m.entities[name] = value


def _model_entities(m: _Merge) -> None:
    """The model's entities the offline reader did not read: kept when they follow from the message."""
    for name, value in m.output.extracted_entities.items():
        if name in m.entities or value in (None, "", []):
            continue
        if not customer_may_set(m.agent, name):
            m.entities[name] = value  # not the customer's to set: focal.sensing.provenance drops it and says so
            continue
        if grounding(m.agent, m.session, name, value, m.text, m.offline_values, m.today):
            m.entities[name] = value
            m.used = True
        else:
            m.drop(f"the model's {name}={_short(value)} dropped: not in the message (made up)")


def _ambiguity(m: _Merge) -> None:
    """The model's confident intent resolves an offline near-tie; the model's doubt counts when nothing was read."""
    if m.ambiguous and m.flow is not None:
        m.ambiguous, m.reason = False, None
        m.notes.append(f"the offline near-tie resolved by the model's confident {m.flow}")
    if m.output.is_ambiguous and not m.ambiguous and not m.offline.commands and m.flow is None:
        m.ambiguous, m.reason = True, m.output.ambiguity_reason or "the model found the message ambiguous"
        m.used = True


MERGE_STEPS: tuple[Callable[[_Merge], None], ...] = (
    _take_intent, _model_commands, _customer_spelling, _model_entities, _ambiguity)


def merge_readings(agent: AgentConfig, session: Session, text: str, offline: Context, output: ModelReading,
                   today: date | None = None) -> Context:
    """The offline reading with what the model's reading may add to it (see the module)."""
    m = _begin(agent, session, text, offline, output, today)
    for step in MERGE_STEPS:
        step(m)
    if not m.used and not m.set_aside:
        m.set_aside.append("nothing of the model's reading was taken")
    offline_acts = m.offline_acts
    acts_taken = any(c.name in ACTS and c.name not in offline_acts for c in m.commands)
    merged = offline.model_copy(update={
        "commands": m.commands, "extracted_entities": m.entities, "is_ambiguous": m.ambiguous,
        "ambiguity_reason": m.reason, "source": "model",
        "intent_confidence": output.intent_confidence if m.flow is not None or acts_taken else offline.intent_confidence,
        "notes": [*offline.notes, *m.notes, *([] if m.used else ["nothing of the model's reading was taken"])],
        "set_aside": [*offline.set_aside, *m.set_aside],
    })
    if m.flow is not None:
        merged.detected_intent = next((s.intent_label or s.id for s in agent.scenarios if s.id == m.flow), m.flow)
    return merged
