"""The offline sensor: intent by nearest entry examples, dialogue acts by lexicon, values by type."""

from __future__ import annotations

from typing import Any

from focal.dialogue.flow import current_step
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Scenario, Slot
from focal.models.context import Command, Context, IntentScore
from focal.models.session import Session
from focal.sensing import lexicon
from focal.sensing.extraction import coerce, extract


def slot_field(agent: AgentConfig, slot: Slot) -> ProfileFieldDefinition:
    """A slot is read with the field definition of the same name when there is one."""
    return agent.field(slot.name) or ProfileFieldDefinition(field_name=slot.name, field_type=slot.type)


def message_entities(agent: AgentConfig, text: str) -> dict[str, Any]:
    out = {}
    for f in agent.profile_field_definitions:
        if "message" not in f.sources or f.field_type == "string" and not f.pattern:
            continue
        value = extract(f, text)
        if value not in (None, [], ""):
            out[f.field_name] = coerce(f.field_type, value)
    return out


def _slots_of(scenario: Scenario | None, step_id: str | None = None) -> list[Slot]:
    if scenario is None:
        return []
    return [slot for step in scenario.steps if step_id is None or step.id == step_id for slot in step.slots]


def _ambiguity(agent: AgentConfig, scores: list[IntentScore], active: bool) -> str | None:
    nav = agent.navigation
    if active or not scores:
        return None
    best = scores[0]
    if len(scores) > 1 and scores[1].score >= nav.entry_threshold and best.score - scores[1].score < nav.ambiguity_margin:
        return f"'{best.label}' and '{scores[1].label}' fit almost equally ({best.score:.2f} vs {scores[1].score:.2f})"
    return None  # a weak best intent is judged by route, after the rules have had their say


def offline_context(
    agent: AgentConfig, session: Session, text: str, embedding: list[float], scores: list[IntentScore]
) -> Context:
    nav = agent.navigation
    commands: list[Command] = []
    active = agent.scenario(session.active_scenario_id)
    step = current_step(agent, session)
    entities = message_entities(agent, text)
    best = scores[0] if scores else None

    if lexicon.is_handoff(text):
        commands.append(Command(name="HumanHandoff"))
    elif active and lexicon.is_cancel(text):
        commands.append(Command(name="CancelFlow", flow=active.id))
    if active and session.flow_state == "confirming":
        if lexicon.is_affirm(text):
            commands.append(Command(name="AffirmConfirmation", flow=active.id))
        elif lexicon.is_deny(text):
            commands.append(Command(name="DenyConfirmation", flow=active.id))

    acts = {c.name for c in commands}  # dialogue acts (hand-off, cancel, affirm, deny)
    starting = None
    if best and best.score >= nav.entry_threshold and best.scenario_id != session.active_scenario_id:
        starting = agent.scenario(best.scenario_id)
        commands.append(Command(name="StartFlow", flow=best.scenario_id, value=round(best.score, 4)))

    consumed = {c.name for c in commands}
    for scenario in (active, starting):
        for slot in _slots_of(scenario):
            value = entities.get(slot.name)
            if value is None:
                value = coerce(slot.type, extract(slot_field(agent, slot), text))
            if value not in (None, "", []):
                commands.append(Command(name="SetSlot", flow=scenario.id, slot=slot.name, value=value))
    # A free-text slot takes the whole message when nothing else claims it.
    if (
        step is not None
        and session.flow_state == "waiting_for_slot"
        and not consumed
        and not any(c.name == "SetSlot" for c in commands)
    ):
        waiting = next((s for s in step.slots if s.type == "string" and session.slots.get(s.name) in (None, "")), None)
        if waiting is not None and text.strip():
            commands.append(Command(name="SetSlot", flow=active.id if active else None, slot=waiting.name, value=text.strip()))
    if not commands and lexicon.is_greeting(text):
        commands.append(Command(name="ChitChat", topic="greeting"))

    ambiguity = None if acts or any(c.name == "SetSlot" for c in commands) else _ambiguity(agent, scores, active is not None)
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
    )
