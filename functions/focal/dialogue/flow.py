"""The flow stack: starting, progressing, finishing and resuming scenarios (seed 003).

`progress` walks the active scenario forward as far as the known variables allow and says what
the turn must do next: ask for a slot, ask for confirmation, run the step's tools, or report the
finished step. Route calls it after executing the commands; tools calls it again after the step's
tools have run, because transitions may read what the tools returned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from focal import expressions
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, Scenario, Slot, Step
from focal.models.session import FlowFrame, Session

MAX_STEPS_PER_TURN = 10  # a cycle of transitions whose conditions all hold must not spin


@dataclass
class Progress:
    action: str  # ask_slot | confirm | run_tools | complete | idle
    step: Step | None = None
    slot: Slot | None = None
    tools: list[str] = field(default_factory=list)
    completed_scenario: Scenario | None = None
    resumed: FlowFrame | None = None
    notes: list[str] = field(default_factory=list)


def current_step(agent: AgentConfig, session: Session) -> Step | None:
    return agent.step(session.active_scenario_id, session.active_step_id)


def start_flow(agent: AgentConfig, session: Session, scenario: Scenario) -> None:
    """Enter `scenario` at its entry step; an interrupted flow is kept on the stack to resume later."""
    if session.active_scenario_id and session.active_scenario_id != scenario.id:
        session.flow_stack.append(
            FlowFrame(scenario_id=session.active_scenario_id, step_id=session.active_step_id or "", state=session.flow_state)
        )
    for step in scenario.steps:  # a fresh start: forget this scenario's old slot values
        for slot in step.slots:
            session.slots.pop(slot.name, None)
    _enter(session, scenario.id, scenario.entry_step_id)


def _enter(session: Session, scenario_id: str | None, step_id: str | None) -> None:
    session.active_scenario_id = scenario_id
    session.active_step_id = step_id
    session.flow_state = "waiting_for_slot" if scenario_id else "idle"
    session.confirmed_step = None
    session.actions_done_step = None


def end_flow(session: Session) -> FlowFrame | None:
    """Leave the active flow; resume the most recently interrupted one, which is returned."""
    if session.flow_stack:
        frame = session.flow_stack.pop()
        _enter(session, frame.scenario_id, frame.step_id)
        return frame
    _enter(session, None, None)
    return None


def missing_slot(step: Step, variables: dict[str, Any]) -> Slot | None:
    return next((s for s in step.slots if s.required and variables.get(s.name) in (None, "")), None)


def slot_value_valid(slot: Slot, value: Any) -> bool:
    if not slot.validation:
        return True
    try:
        return bool(expressions.evaluate(slot.validation, {"value": value}))
    except ExpressionError:
        return False


def next_step_id(step: Step, variables: dict[str, Any]) -> str | None:
    for transition in step.transitions:
        if not transition.when:
            return transition.target
        try:
            if expressions.evaluate(transition.when, variables):
                return transition.target
        except ExpressionError:
            continue  # a condition on a variable not known yet does not hold
    return None


def progress(agent: AgentConfig, session: Session, variables: dict[str, Any]) -> Progress:
    for _ in range(MAX_STEPS_PER_TURN):
        step = current_step(agent, session)
        if step is None:
            return Progress("idle")
        slot = missing_slot(step, variables)
        if slot is not None:
            session.flow_state = "waiting_for_slot"
            return Progress("ask_slot", step=step, slot=slot)
        if step.requires_confirmation and session.confirmed_step != step.id:
            session.flow_state = "confirming"
            return Progress("confirm", step=step)
        if step.action and session.actions_done_step != step.id:
            session.flow_state = "executing_action"
            return Progress("run_tools", step=step, tools=list(step.action))
        target = next_step_id(step, variables)
        if target is not None:
            _enter(session, session.active_scenario_id, target)
            continue
        if step.transitions:
            # Transitions exist but none holds: wait here, the customer has to tell us more.
            session.flow_state = "waiting_for_slot"
            return Progress("complete", step=step, notes=[f"no transition of step {step.id} holds"])
        scenario = agent.scenario(session.active_scenario_id)
        resumed = end_flow(session)
        return Progress("complete", step=step, completed_scenario=scenario, resumed=resumed)
    session.flow_state = "error"
    return Progress("idle", notes=["transition cycle stopped"])
