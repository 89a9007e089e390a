"""What the flow needs next, written into the turn's route decision (route, tools and resolution share it)."""

from __future__ import annotations

from focal.dialogue.flow import Progress
from focal.models.agent import AgentConfig
from focal.models.turn import TurnState


def apply_progress(state: TurnState, agent: AgentConfig, step: Progress) -> None:
    """Turn what the flow needs next into the route decision (shared with the tools stage)."""
    d = state.route.decision
    assert state.session is not None
    d.scenario_id = state.session.active_scenario_id
    d.step_id = state.session.active_step_id
    d.notes.extend(step.notes)
    if step.action == "ask_slot" and step.slot:
        d.action, d.asked_slot = "ask_slot", step.slot.name
    elif step.action == "confirm":
        d.action = "confirm"
    elif step.action == "run_tools":
        d.pending_tools = step.tools
    elif step.action == "not_found":
        d.action, d.not_found = "not_found", step.missing
        if step.offered:
            d.resume_offered_id = step.offered.scenario_id
    elif step.action == "unknown":
        d.action = "tool_error"  # the step's action may have run: the customer hears it is being checked
    elif step.action == "escalate":
        d.action, d.escalation_reason = "escalate", step.reason
        if step.completed_scenario is not None and step.step is not None:
            d.escalated_at = f"{step.completed_scenario.id}.{step.step.id}"
    elif step.action == "complete":
        d.action = "complete"
        d.scenario_id = step.completed_scenario.id if step.completed_scenario else d.scenario_id
        d.step_id = step.step.id if step.step else d.step_id
        if step.completed_scenario:
            d.completed_scenario_id = step.completed_scenario.id
        if step.offered:
            d.resume_offered_id = step.offered.scenario_id
