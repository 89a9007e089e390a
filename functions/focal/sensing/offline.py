"""The offline sensor: intent by nearest entry examples, dialogue acts by lexicon and exemplars,
slot values by type, corrections by cue words, hypotheticals held back for a question."""

from __future__ import annotations

import re
from typing import Any

from focal.dialogue.flow import current_step
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Scenario, Slot
from focal.models.context import Command, Context, IntentScore
from focal.models.session import Session
from focal.sensing import lexicon
from focal.sensing.acts import detect_acts
from focal.sensing.extraction import coerce, extract

STOP_ACTS = ("HumanHandoff", "CancelFlow")  # explicit exits: they break stickiness


def slot_field(agent: AgentConfig, slot: Slot) -> ProfileFieldDefinition:
    """A slot is read with the field definition of the same name when there is one."""
    return agent.field(slot.name) or ProfileFieldDefinition(field_name=slot.name, field_type=slot.type)


def message_entities(agent: AgentConfig, text: str) -> dict[str, Any]:
    out = {}
    for f in agent.profile_field_definitions:
        if "message" not in f.sources or f.privileged or f.field_type == "string" and not f.pattern:
            continue
        value = extract(f, text)
        if value not in (None, [], ""):
            out[f.field_name] = coerce(f.field_type, value)
    return out


def _slots_of(scenario: Scenario | None) -> list[Slot]:
    return [slot for step in scenario.steps for slot in step.slots] if scenario else []


def _ambiguity(agent: AgentConfig, scores: list[IntentScore], active: bool) -> str | None:
    nav = agent.navigation
    if active or not scores:
        return None
    best = scores[0]
    if len(scores) > 1 and scores[1].score >= nav.entry_threshold and best.score - scores[1].score < nav.ambiguity_margin:
        return f"'{best.label}' and '{scores[1].label}' fit almost equally ({best.score:.2f} vs {scores[1].score:.2f})"
    return None  # a weak best intent is judged by route, after the rules have had their say


GENERIC_NOUNS = {"number", "id", "value", "name", "code"}


def _mentions(agent: AgentConfig, slot: Slot, text: str) -> bool:
    """Whether the message names the slot: "the order number", "the new address", "the address"."""
    field = agent.field(slot.name)
    names = {slot.name.replace("_", " ")}
    if field and field.display_name:
        words = field.display_name.lower().split()
        names.add(" ".join(words))
        if words[-1] not in GENERIC_NOUNS:
            names.add(words[-1])
    return any(re.search(rf"\b{re.escape(n)}\b", text, re.IGNORECASE) for n in names)


def _slot_commands(
    agent: AgentConfig, session: Session, text: str, entities: dict[str, Any], scenarios: list[Scenario]
) -> list[Command]:
    """SetSlot for new values; CorrectSlot when the active flow already holds a different value, or
    when the customer asks to change a value without giving the new one ("wrong address")."""
    commands: list[Command] = []
    correcting = lexicon.is_correction(text)
    for scenario in scenarios:
        active = scenario.id == session.active_scenario_id
        for slot in _slots_of(scenario):
            value = entities.get(slot.name)
            if value is None:
                value = coerce(slot.type, extract(slot_field(agent, slot), text))
            held = session.slots.get(slot.name) if active else None
            if value not in (None, "", []):
                name = "CorrectSlot" if held not in (None, "") and held != value else "SetSlot"
                commands.append(Command(name=name, flow=scenario.id, slot=slot.name, value=value))
            elif active and correcting and held not in (None, "") and _mentions(agent, slot, text):
                commands.append(Command(name="CorrectSlot", flow=scenario.id, slot=slot.name, value=None))
    return commands


def _candidate(agent: AgentConfig, session: Session, scores: list[IntentScore], exiting: bool) -> IntentScore | None:
    """The scenario the message would start. Inside a flow only an unmistakable other intent
    (≥ exit_intent_threshold) is proposed, or any entry-worthy one once the customer cancels;
    route has the last word (stickiness)."""
    nav = agent.navigation
    other = next((s for s in scores if s.scenario_id != session.active_scenario_id), None)
    if other is None or other.score < nav.entry_threshold:
        return None
    if session.active_scenario_id and not exiting and other.score < nav.exit_intent_threshold:
        return None
    return other


def offline_context(
    agent: AgentConfig,
    session: Session,
    text: str,
    embedding: list[float],
    scores: list[IntentScore],
    act_similarities: dict[str, float] | None = None,
) -> Context:
    nav = agent.navigation
    commands: list[Command] = []
    notes: list[str] = []
    active = agent.scenario(session.active_scenario_id)
    step = current_step(agent, session)
    entities = message_entities(agent, text)
    best = scores[0] if scores else None
    hypothetical = lexicon.is_hypothetical(text)
    acts = detect_acts(text, act_similarities, agent.sensor.act_similarity)
    notes += [f"act {act} ({how})" for act, how in acts.items()]
    answering = session.offer is not None or (active is not None and session.flow_state == "confirming")

    if "handoff" in acts:
        commands.append(Command(name="HumanHandoff"))
    elif active and "cancel" in acts and not hypothetical:
        commands.append(Command(name="CancelFlow", flow=active.id))
    if answering and not hypothetical:
        flow = active.id if active else session.offer.scenario_id  # type: ignore[union-attr]
        if "affirm" in acts:
            commands.append(Command(name="AffirmConfirmation", flow=flow))
        elif "deny" in acts:
            commands.append(Command(name="DenyConfirmation", flow=flow))

    starting = None
    candidate = _candidate(agent, session, scores, exiting="CancelFlow" in {c.name for c in commands})
    if candidate is not None:
        if hypothetical:
            commands.append(Command(name="Clarify", flow=candidate.scenario_id, topic="hypothetical"))
        else:
            starting = agent.scenario(candidate.scenario_id)
            commands.append(Command(name="StartFlow", flow=candidate.scenario_id, value=round(candidate.score, 4)))

    if not hypothetical:
        # Values in a message that starts a flow belong to that flow ("check the status of A1004"
        # during a refund is not a new refund order number).
        owners = [starting] if starting else [active] if active else []
        commands += _slot_commands(agent, session, text, entities, owners)
    # A free-text slot takes the whole message when nothing else claims it.
    if step is not None and session.flow_state == "waiting_for_slot" and not commands and not acts and text.strip():
        waiting = next((s for s in step.slots if s.type == "string" and session.slots.get(s.name) in (None, "")), None)
        if waiting is not None:
            commands.append(Command(name="SetSlot", flow=active.id if active else None, slot=waiting.name, value=text.strip()))
    if not commands and "chitchat" in acts:
        commands.append(Command(name="ChitChat", topic="greeting" if lexicon.is_greeting(text) else "smalltalk"))

    names = {c.name for c in commands}
    ambiguity = None
    if hypothetical and "Clarify" in names:
        ambiguity = f"a hypothetical question about '{candidate.label}': asked before acting" if candidate else "hypothetical"
    elif not names & {"HumanHandoff", "CancelFlow", "AffirmConfirmation", "DenyConfirmation", "SetSlot", "CorrectSlot"}:
        ambiguity = _ambiguity(agent, scores, active is not None)
    return Context(
        message=text,
        embedding=embedding,
        detected_intent=best.label if best and best.score >= nav.clarify_floor else None,
        intent_confidence=best.score if best else 0.0,
        intent_scores=scores[:5],
        extracted_entities=entities,
        is_ambiguous=ambiguity is not None,
        ambiguity_reason=ambiguity,
        commands=commands,
        source="offline",
        notes=notes,
    )
