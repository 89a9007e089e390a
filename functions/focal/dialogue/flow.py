"""The flow stack: starting, progressing, finishing, calling and resuming scenarios.

`progress` walks the active scenario forward as far as the known variables allow and says what
the turn must do next: ask for a slot, ask for confirmation, run the step's tools, or report the
finished step. Route calls it after executing the commands; tools calls it again after the step's
tools have run, because transitions may read what the tools returned.

A step whose action a guard stopped is `blocked` (`hold_blocked`): its confirmation is withdrawn and the flow
waits at the step for a changed value. A changed value moves the flow as any correction does (back to the step
that collects it, whose lookups run again); until then the step is not offered again: `progress` hands its
action to the tools stage, which previews its guards without attempting it (the yes was spent on the blocked
attempt) and asks the question again only once they hold.

A step action that failed is never taken as done. When nothing of it took effect (`action_failed_step`) the step
asks again, and only a fresh yes runs it; when it may have taken effect (`outcome_unknown`) it is never run again:
the flow waits at the step (state `error`) until the customer leaves it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from focal import expressions
from focal.dialogue.carried_slots import carried_values
from focal.dialogue.lookup_facts import failed_lookups, found_variable, named_object, unknown_facts
from focal.errors import ExpressionError
from focal.flow_reading import current_step, flow_slots, missing_slot, scenario_slot_names
from focal.models.agent import AgentConfig, Scenario, Slot, Step, Transition
from focal.models.session import FlowFrame, LookupRetry, Offer, Session
from focal.pii import holds_mask

MAX_STEPS_PER_TURN = 10  # a cycle of transitions whose conditions all hold must not spin


@dataclass
class Progress:
    action: str  # ask_slot | confirm | run_tools | complete | not_found | escalate | unknown | idle
    step: Step | None = None
    slot: Slot | None = None
    tools: list[str] = field(default_factory=list)
    completed_scenario: Scenario | None = None
    offered: FlowFrame | None = None  # an interrupted flow offered back after this one finished
    notes: list[str] = field(default_factory=list)
    missing: str = ""  # not_found: what the customer named that a look-up did not find
    reason: str = ""  # escalate: why the flow hands the conversation to a person


def customer_confirmed(agent: AgentConfig, session: Session) -> bool:
    """The guards' built-in `customer_confirmed`: the customer said yes to the step that leads to the call."""
    step = current_step(agent, session)
    return bool(step and step.requires_confirmation and session.confirmed_step == step.id)


def hold_blocked(session: Session) -> None:
    """A guard stopped the active step's action: a yes given is spent, no question is left open, and the flow
    waits at the step (state `blocked`) for a changed value, a new request, or a "no"."""
    session.confirmed_step = None
    session.flow_state = "blocked"


def start_flow(agent: AgentConfig, session: Session, scenario: Scenario, call: bool = False,
               left: str | None = None) -> list[str]:
    """Enter `scenario` at its entry step; an interrupted flow is kept on the stack to resume later.

    Flows share slot and variable names ("order_id", "order_total"), so the interrupted flow's
    values travel with its frame and come back with it. A flow entered by a step's `call` keeps the
    values already known (an identity verified earlier is not asked again) and hands back what it collects.
    Otherwise the values the customer gave the flow being left (the active one, or `left`, cancelled this turn)
    that `scenario` shows in a confirmation before acting are kept (focal.dialogue.carried_slots); returns their
    names.
    """
    carried = {} if call else carried_values(agent, session, scenario, session.active_scenario_id or left)
    if session.active_scenario_id and session.active_scenario_id != scenario.id:
        interrupted = agent.scenario(session.active_scenario_id)
        saved = {n: session.slots[n] for n in scenario_slot_names(interrupted) if n in session.slots}
        session.flow_stack.append(
            FlowFrame(scenario_id=session.active_scenario_id, step_id=session.active_step_id or "",
                      state=session.flow_state, slots=saved, variables=dict(session.variables),
                      effects_done=list(session.effects_done), outcome_unknown=list(session.outcome_unknown), call=call)
        )
    if not call:
        for name in scenario_slot_names(scenario):  # a fresh start: forget this scenario's old slot values
            session.slots.pop(name, None)
        session.slots.update(carried)
    session.offer = None
    session.effects_done = []  # a fresh start of this flow, even when it was the active one
    session.outcome_unknown = []
    session.step_attempts = {}
    _enter(session, scenario.id, scenario.entry_step_id)
    return list(carried)


def _enter(session: Session, scenario_id: str | None, step_id: str | None) -> None:
    if scenario_id != session.active_scenario_id:
        session.effects_done = []  # a step move keeps what this flow already did; another flow starts clean
        session.outcome_unknown = []
        session.step_attempts = {}
    session.active_scenario_id = scenario_id
    session.active_step_id = step_id
    session.flow_state = "waiting_for_slot" if scenario_id else "idle"
    session.confirmed_step = None
    session.actions_done_step = None
    session.action_failed_step = None
    session.call_done_step = None
    session.clarification_counts.clear()


def remember_failed_lookups(agent: AgentConfig, session: Session, variables: dict[str, Any]) -> None:
    """The flow ends after a look-up found nothing for a value the customer gave: for one turn, a new value for that
    slot is taken as its correction (`retry_flow`)."""
    failed = failed_lookups(agent, agent.scenario(session.active_scenario_id), variables)
    if failed and session.active_scenario_id:
        scenario = agent.scenario(session.active_scenario_id)
        session.retry = LookupRetry(
            scenario_id=session.active_scenario_id, slots={n: session.slots[n] for n in scenario_slot_names(scenario)
                                                           if n in session.slots},
            retry_slots=list(dict.fromkeys(n for _, names in failed for n in names)), tools=[t.id for t, _ in failed])


def retry_flow(agent: AgentConfig, session: Session, slot_name: str) -> Step | None:
    """The customer gave a new value for the slot whose look-up found nothing: the flow starts again with the values it
    had, at the step that collects that slot (its look-ups run again with the new value, as they would have at first).
    What the failed look-ups answered is forgotten. Returns that step, or None when it cannot run again."""
    retry, session.retry = session.retry, None
    scenario = agent.scenario(retry.scenario_id) if retry else None
    owner = next((st for st in (scenario.steps if scenario else []) if any(s.name == slot_name for s in st.slots)), None)
    if retry is None or scenario is None or owner is None or slot_name not in retry.retry_slots:
        return None
    start_flow(agent, session, scenario)
    session.slots.update({n: v for n, v in retry.slots.items() if n != slot_name})
    for tool in filter(None, (agent.tool(t) for t in retry.tools)):
        for name in tool.output.values():
            session.variables.pop(name, None)
    _enter(session, scenario.id, owner.id)
    return owner


def _drop_callers(session: Session) -> None:
    """Flows paused on a call to a flow that will not finish are abandoned with it."""
    while session.flow_stack and session.flow_stack[-1].call:
        session.flow_stack.pop()


def return_from_call(session: Session) -> FlowFrame | None:
    """The active flow finished and a step called it: that flow resumes at the calling step, at once, with the
    values the called flow collected (they win over the ones it had; what its tools read before is kept unless a
    side effect made it stale)."""
    if not session.flow_stack or not session.flow_stack[-1].call:
        return None
    frame = session.flow_stack.pop()
    session.slots = {**frame.slots, **session.slots}
    if not frame.stale:
        session.variables = {**frame.variables, **session.variables}
    _enter(session, frame.scenario_id, frame.step_id)
    session.effects_done = list(frame.effects_done)
    session.outcome_unknown = list(frame.outcome_unknown)
    session.call_done_step = frame.step_id
    return frame


def end_flow(session: Session, finished: bool = False) -> FlowFrame | None:
    """Leave the active flow. An interrupted flow under it is offered back, not resumed unasked:
    the frame is returned and `session.offer` asks "shall we continue?" on the next turn. A flow
    that called this one cannot go on without it and ends too."""
    _enter(session, None, None)
    if finished:
        session.flow_state = "completed"
    _drop_callers(session)
    if session.flow_stack:
        frame = session.flow_stack[-1]
        session.offer = Offer(kind="resume", scenario_id=frame.scenario_id)
        return frame
    return None


def resume_flow(session: Session, agent: AgentConfig | None = None) -> FlowFrame | None:
    """The customer agreed to continue: the interrupted flow comes back with its slot values. When a side effect
    ran since it was paused (`frame.stale`), what its tools read then may no longer be true: every tool's output is
    forgotten and the flow starts again from its entry step with its values, so its lookups run again and any
    confirmation is asked again with fresh facts."""
    if not session.flow_stack:
        return None
    frame = session.flow_stack.pop()
    session.slots.update(frame.slots)
    step_id = frame.step_id
    if frame.stale:
        for name in {v for t in (agent.tools if agent else []) for v in t.output.values()}:
            session.variables.pop(name, None)
        scenario = agent.scenario(frame.scenario_id) if agent else None
        step_id = scenario.entry_step_id if scenario else frame.step_id
    else:
        session.variables.update(frame.variables)
    _enter(session, frame.scenario_id, step_id)
    if frame.state == "blocked" and not frame.stale:
        session.flow_state = "blocked"  # nothing its guards read has changed: still not offered again unchecked
    session.effects_done = list(frame.effects_done)  # what the flow already did comes back with it
    session.outcome_unknown = list(frame.outcome_unknown)
    session.offer = None
    return frame


def drop_offer(session: Session) -> None:
    """The customer declined (or ignored) the offer: a declined resume forgets the interrupted flow."""
    if session.offer and session.offer.kind == "resume" and session.flow_stack:
        session.flow_stack.pop()
        _drop_callers(session)
    session.offer = None


def rewind_to_slot(agent: AgentConfig, session: Session, slot_name: str) -> Step | None:
    """A corrected value belongs to an earlier step: go back there so its actions and transitions
    run again with the new value. Returns the step rewound to, if any.

    A value a called flow collected belongs to the step that calls it: going back there calls that flow again, so its
    look-ups (a verification) run again on the new value instead of vouching for the old one."""
    scenario = agent.scenario(session.active_scenario_id)
    owner = next((st for st in (scenario.steps if scenario else []) if _collects(agent, st, slot_name)), None)
    if scenario is None or owner is None or owner.id == session.active_step_id:
        return None
    if session.active_step_id and not _reachable(scenario, owner.id, session.active_step_id):
        return None  # a value for a later step, given early and changed before the flow got there: no jump ahead
    _enter(session, scenario.id, owner.id)
    return owner


def _collects(agent: AgentConfig, step: Step, slot_name: str) -> bool:
    """The step asks for the slot itself, or through the flow it calls (transitively)."""
    if any(s.name == slot_name for s in step.slots):
        return True
    called = agent.scenario(step.call) if step.call else None
    return called is not None and any(s.name == slot_name for s in flow_slots(agent, called))


def _reachable(scenario: Scenario, start: str, goal: str) -> bool:
    """`goal` can follow `start` along the scenario's transitions: `start` comes before it."""
    steps = {st.id: st for st in scenario.steps}
    seen, todo = {start}, [start]
    while todo:
        step = steps.get(todo.pop())
        for t in step.transitions if step else []:
            if t.target == goal:
                return True
            if t.target is not None and t.target not in seen:
                seen.add(t.target)
                todo.append(t.target)
    return False


def next_transition(step: Step, variables: dict[str, Any]) -> Transition | None:
    for transition in step.transitions:
        if not transition.when:
            return transition
        try:
            if expressions.evaluate(transition.when, variables):
                return transition
        except ExpressionError:
            continue  # a condition on a variable not known yet does not hold
    return None


def _not_found(agent: AgentConfig, session: Session, step: Step, variables: dict[str, Any],
               notes: list[str]) -> Progress | None:
    """The step would ask about, or act on, an object an earlier look-up did not find: say what was not found and end
    the flow (nothing is offered, nothing runs) instead of asking to confirm an unknown object."""
    missing = unknown_facts(agent, agent.scenario(session.active_scenario_id), step, variables)
    if not missing:
        return None
    what = " or ".join(dict.fromkeys(named_object(agent, tool, variables) for tool, _ in missing))
    why = "; ".join(f"{tool.id} gave no true {names[0]}" if names == [found_variable(tool)]
                    else f"{tool.id} gave no {', '.join(names)}" for tool, names in missing)
    note = f"step {step.id} not offered: {why} (nothing found for {what}); the flow ends"
    remember_failed_lookups(agent, session, variables)
    offered = end_flow(session)
    return Progress("not_found", step=step, offered=offered, notes=[*notes, note], missing=what)


def _escalate(agent: AgentConfig, session: Session, step: Step, taken: Transition, notes: list[str]) -> Progress:
    """A transition with `escalate: true` holds: the flow ends and the conversation goes to a person, with why."""
    scenario = agent.scenario(session.active_scenario_id)
    because = taken.reason or (f"{taken.when} holds" if taken.when else "the flow hands over here")
    reason = f"Handed over by flow '{scenario.name if scenario else session.active_scenario_id}' at step '{step.id}': {because}."
    end_flow(session)
    session.flow_stack.clear()  # a person takes over: no interrupted flow is offered back
    session.offer = None
    return Progress("escalate", step=step, completed_scenario=scenario, notes=[*notes, f"step {step.id} escalates: {because}"],
                    reason=reason)


def _ask_or_act(agent: AgentConfig, session: Session, step: Step, variables: dict[str, Any],
                notes: list[str]) -> Progress | None:
    """The step's question or action, when it still has one: never over an object a look-up did not find. An action
    that may have run (its outcome unknown) is never run again: the flow waits at its step. One that failed with
    nothing done runs again only after a fresh yes, even at a step that asks for none."""
    if step.id in session.outcome_unknown and step.action:
        session.flow_state = "error"
        return Progress("unknown", step=step, notes=[*notes, f"step {step.id} waits: its action may have run (outcome "
                                                             "unknown), so it is not run again"])
    if (step.requires_confirmation or session.action_failed_step == step.id) and session.confirmed_step != step.id:
        if session.flow_state == "blocked" and step.action:
            # its guards are checked again (nothing runs) before the question is asked again
            return Progress("run_tools", step=step, tools=list(step.action), notes=notes)
        if (unknown := _not_found(agent, session, step, variables, notes)) is not None:
            return unknown
        session.flow_state = "confirming"
        return Progress("confirm", step=step, notes=notes)
    if step.action and session.actions_done_step != step.id:
        if (unknown := _not_found(agent, session, step, variables, notes)) is not None:
            return unknown
        session.flow_state = "executing_action"
        return Progress("run_tools", step=step, tools=list(step.action), notes=notes)
    return None


def _masked_input(session: Session, step: Step, variables: dict[str, Any], notes: list[str]) -> Slot | None:
    """A slot of a step about to act whose value was stored masked (a `pii: true` value given on an earlier turn,
    focal.pii): its value is gone, so the action never receives the mask ("[redacted:card_last4]" checked as the
    card's digits fails an honest customer). The slot is emptied and asked again; the answer is used in its turn.
    Once the action has run, the masked slot stays filled (the flow goes on)."""
    if not step.action or step.id == session.actions_done_step:
        return None
    slot = next((s for s in step.slots if holds_mask(variables.get(s.name))), None)
    if slot is not None:
        for values in (session.slots, session.variables, variables):
            values.pop(slot.name, None)
        notes.append(f"step {step.id} asks {slot.name} again: its value was stored masked (pii), the action needs it")
    return slot


def progress(agent: AgentConfig, session: Session, variables: dict[str, Any]) -> Progress:
    notes: list[str] = []
    for _ in range(MAX_STEPS_PER_TURN):
        step = current_step(agent, session)
        if step is None:
            return Progress("idle", notes=notes)
        called = agent.scenario(step.call) if step.call and session.call_done_step != step.id else None
        if called is not None:
            notes.append(f"step {step.id} calls {called.id}")
            start_flow(agent, session, called, call=True)
            continue
        slot = missing_slot(step, variables) or _masked_input(session, step, variables, notes)
        if slot is not None:
            session.flow_state = "waiting_for_slot"
            return Progress("ask_slot", step=step, slot=slot, notes=notes)
        if (acting := _ask_or_act(agent, session, step, variables, notes)) is not None:
            return acting
        taken = next_transition(step, variables)
        if taken is not None and taken.escalate:
            return _escalate(agent, session, step, taken, notes)
        if taken is not None and taken.target is not None:
            _enter(session, session.active_scenario_id, taken.target)
            continue
        if step.transitions:
            # Transitions exist but none holds: wait here, the customer has to tell us more.
            session.flow_state = "waiting_for_slot"
            return Progress("complete", step=step, notes=[*notes, f"no transition of step {step.id} holds"])
        scenario = agent.scenario(session.active_scenario_id)
        if (caller := return_from_call(session)) is not None:
            notes.append(f"{scenario.id if scenario else '?'} finished: back to {caller.scenario_id}")
            continue
        remember_failed_lookups(agent, session, variables)
        offered = end_flow(session, finished=True)
        return Progress("complete", step=step, completed_scenario=scenario, offered=offered, notes=notes)
    session.flow_state = "error"
    return Progress("idle", notes=[*notes, "transition cycle stopped"])
