"""Reading an agent's flows, changing nothing: the step a session is at, the slots a flow collects (with those of
the flows it calls), the first one a step still misses, whether a value passes its validation expressions.

The flow machine (focal.dialogue.flow), the offline sensor (focal.sensing.offline) and validate read them; they sit
below all three, beside the models they read.
"""

from __future__ import annotations

from typing import Any

from focal import expressions
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, Scenario, Slot, Step
from focal.models.session import Session


def current_step(agent: AgentConfig, session: Session) -> Step | None:
    return agent.step(session.active_scenario_id, session.active_step_id)


def _callers(session: Session) -> list[str]:
    """The flows paused on a `call` to the active one, the nearest first."""
    paused: list[str] = []
    for frame in reversed(session.flow_stack):
        if not frame.call:
            break
        paused.append(frame.scenario_id)
    return paused


def flows_in_progress(session: Session) -> set[str]:
    """The active flow and the flows paused on a `call` to it: one request in progress, cancelled together."""
    return {session.active_scenario_id, *_callers(session)} if session.active_scenario_id else set()


def first_caller(session: Session) -> str | None:
    """The flow that began the chain of calls the active flow is in (None: the active flow was not called)."""
    callers = _callers(session)
    return callers[-1] if callers else None


def scenario_slot_names(scenario: Scenario | None) -> list[str]:
    return [slot.name for step in (scenario.steps if scenario else []) for slot in step.slots]


def flow_slots(agent: AgentConfig, scenario: Scenario | None) -> list[Slot]:
    """The slots a flow collects: its own, then those of the flows its steps call (transitively), so a value in the
    message that starts it ("no signal, my number is 555-123-2002") is kept for the identification it calls."""
    out: list[Slot] = []
    seen: set[str] = set()
    todo = [scenario] if scenario is not None else []
    while todo:
        current = todo.pop(0)
        if current.id in seen:
            continue
        seen.add(current.id)
        out += [slot for step in current.steps for slot in step.slots]
        todo += [called for step in current.steps if step.call and (called := agent.scenario(step.call)) is not None]
    return out


def missing_slot(step: Step, variables: dict[str, Any]) -> Slot | None:
    return next((s for s in step.slots if s.required and variables.get(s.name) in (None, "")), None)


def value_valid(expressions_: list[str], value: Any) -> bool:
    """Every expression over `value` holds (one that cannot be evaluated does not)."""
    for expression in expressions_:
        try:
            if not expressions.evaluate(expression, {"value": value}):
                return False
        except ExpressionError:
            return False
    return True


def slot_value_valid(slot: Slot, value: Any, field_rules: list[str] | None = None) -> bool:
    """The slot's `validation` and the same-named field's `validation_rules` all hold."""
    return value_valid(([slot.validation] if slot.validation else []) + list(field_rules or []), value)
