"""Values the customer already gave that a newly started flow keeps ("change booking RK309911" … "actually, cancel
it": the cancellation does not ask the reference again).

Starting a flow forgets its slots (a fresh start must not act on an old run's values). A value the customer gave in
the flow they are leaving — the active one, or the one this turn cancelled — is kept for the new flow's slot of the
same name (the same field: its type and pattern) and the same type, only when the new flow shows it back before
acting on it: one of its confirmations says it ("Shall I cancel booking {booking_ref}?"), so a value the customer
meant for the other request is never used unseen. Only slots travel: what a tool answered (a verified identity) and a
yes given to the other flow stay behind, as the flow start has always done.
"""

from __future__ import annotations

from typing import Any

from focal.flow_reading import flow_slots
from focal.models.agent import AgentConfig, Scenario
from focal.models.session import Session
from focal.variables import placeholders


def shown_before_acting(scenario: Scenario) -> set[str]:
    """The slots one of the flow's confirmations shows to the customer."""
    return {name for step in scenario.steps if step.requires_confirmation and step.confirmation_prompt
            for name in placeholders(step.confirmation_prompt)}


def carried_values(agent: AgentConfig, session: Session, scenario: Scenario, left: str | None) -> dict[str, Any]:
    """The values of the flow `left` (the flow the customer leaves for `scenario`) that `scenario` keeps."""
    before = agent.scenario(left) if left and left != scenario.id else None
    if before is None:
        return {}
    given = {s.name: s.type for s in flow_slots(agent, before)}
    shown = shown_before_acting(scenario)
    return {s.name: session.slots[s.name] for s in flow_slots(agent, scenario)
            if s.name in shown and given.get(s.name) == s.type and session.slots.get(s.name) not in (None, "", [])}
