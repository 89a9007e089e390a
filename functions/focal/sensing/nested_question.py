"""A question mid-flow about another value of a held slot ("what about my other booking B-128?"): which other
scenario answers it, started nested so the active flow is offered back afterwards."""

from __future__ import annotations

from datetime import date
from typing import Any

from focal.flow_reading import current_step, flow_slots
from focal.models.agent import AgentConfig, Scenario
from focal.models.context import IntentScore
from focal.models.session import Session
from focal.sensing import digression
from focal.sensing.extraction import coerce, extract
from focal.sensing.slot_reading import slot_field


def read_only(agent: AgentConfig, scenario: Scenario) -> bool:
    tools = [agent.tool(t) for st in scenario.steps for t in st.action]
    return all(t is not None and not t.side_effect for t in tools)


def other_values(agent: AgentConfig, session: Session, text: str, entities: dict[str, Any], active: Scenario,
                  today: date | None) -> set[str]:
    """The held slots of the active flow the message gives another value for, without correcting them."""
    step = current_step(agent, session)
    others: set[str] = set()
    for slot in flow_slots(agent, active):
        value = entities.get(slot.name)
        if value is None:
            value = coerce(slot.type, extract(slot_field(agent, slot), text, choosing=True, today=today))
        held = session.slots.get(slot.name)
        if value not in (None, "", []) and held not in (None, "") and held != value \
                and not digression.correction_frame(session, step, slot, text, value):
            others.add(slot.name)
    return others


def nested_scenario(agent: AgentConfig, session: Session, text: str, entities: dict[str, Any], scores: list[IntentScore],
                today: date | None = None) -> IntentScore | None:
    """Mid-flow, a question about another value of a held slot ("what about my other booking B-128?"): answered by
    another scenario that takes that slot — the one the message fits (≥ entry_threshold), else the best-fitting
    read-only one (it only looks things up) — started nested, so the active flow is offered back afterwards."""
    active = agent.scenario(session.active_scenario_id)
    if active is None or digression.is_correction(text) or not digression.is_digression(text):
        return None
    others = other_values(agent, session, text, entities, active, today)
    if not others:
        return None
    takers = [s for s in scores if s.scenario_id != active.id
              and others & {slot.name for slot in flow_slots(agent, agent.scenario(s.scenario_id))}]
    fit = next((s for s in takers if s.score >= agent.navigation.entry_threshold), None)
    if fit is None:
        fit = next((s for s in takers if read_only(agent, agent.scenario(s.scenario_id))), None)  # type: ignore[arg-type]
    return fit
