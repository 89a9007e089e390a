"""Command execution: one small handler per dialogue command, run as the message gives them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from focal.dialogue.flow import (
    drop_offer,
    end_flow,
    resume_flow,
    retry_flow,
    rewind_to_slot,
    start_flow,
)
from focal.flow_reading import first_caller, flow_slots, slot_value_valid
from focal.models.agent import AgentConfig, Slot
from focal.models.context import Command, Context
from focal.models.session import Offer, Session
from focal.models.turn import RouteDecision
from focal.sensing.confirmation_reply import DETAIL
from focal.sensing.extraction import allowed_value, coerce
from focal.sensing.provenance import customer_may_set
from focal.tool_inputs import read_variables


@dataclass
class CommandRun:
    agent: AgentConfig
    session: Session
    context: Context
    decision: RouteDecision
    executed: list[str] = field(default_factory=list)


Handler = Callable[[CommandRun, Command], None]
HANDLERS: dict[str, Handler] = {}


def handles(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        HANDLERS[name] = fn
        return fn

    return register


def _intent_score(run: CommandRun, scenario_id: str | None) -> float:
    return next((s.score for s in run.context.intent_scores if s.scenario_id == scenario_id), 0.0)


@handles("StartFlow")
def _start(run: CommandRun, cmd: Command) -> None:
    scenario = run.agent.scenario(cmd.flow)
    if scenario is None or run.session.active_scenario_id == scenario.id or run.decision.action == "escalate":
        return
    nav = run.agent.navigation
    score = float(cmd.value) if isinstance(cmd.value, int | float) else run.context.intent_confidence
    if run.session.active_scenario_id and cmd.topic == "digression":
        run.decision.notes.append(f"{scenario.id} answers a question asked mid-flow; {run.session.active_scenario_id} is kept to resume")
    elif run.session.active_scenario_id:
        if run.context.source == "model":
            # one scale on both sides: the offline intent score of the proposed flow, not the model's self-rating
            score = _intent_score(run, scenario.id) or score
        # a blocked flow holds no question open: another request only has to fit better than it
        blocked = run.session.flow_state == "blocked"
        held = _intent_score(run, run.session.active_scenario_id) + (0.0 if blocked else nav.stickiness_boost)
        if (score < nav.exit_intent_threshold and not blocked) or score <= held:
            run.decision.notes.append(
                f"stayed in {run.session.active_scenario_id}: {scenario.id} scored {score:.2f} "
                f"(exit needs ≥ {nav.exit_intent_threshold:.2f} and > {held:.2f} with stickiness)"
            )
            return
    carried = start_flow(run.agent, run.session, scenario, left=run.decision.cancelled_scenario_id)
    if carried:
        run.decision.notes.append(f"kept {', '.join(carried)} the customer gave, shown again before {scenario.id} acts")
    run.decision.switched = True
    if run.decision.action == "cancelled":
        run.decision.action = "respond"  # "cancel this and check my booking": the new flow answers
    run.decision.notes.append(f"started {scenario.id} ({score:.2f})")
    run.executed.append("StartFlow")


def _slot(run: CommandRun, name: str | None) -> Slot | None:
    scenario = run.agent.scenario(run.session.active_scenario_id)
    if scenario is None or name is None:
        return None
    return next((s for s in flow_slots(run.agent, scenario) if s.name == name), None)


def _set_slot(run: CommandRun, cmd: Command) -> None:
    if not _for_active_flow(run, cmd):
        return  # a value read for a flow that did not start (stickiness held) is not this flow's
    slot = _slot(run, cmd.slot)
    if slot is None:
        run.decision.notes.append(f"ignored slot {cmd.slot!r}: not part of the active flow")
        return
    held = run.session.slots.get(slot.name)
    if held not in (None, "") and (spent := _spent_by(run, slot.name)) is not None and (
            cmd.value in (None, "") or coerce(slot.type, cmd.value) != held):
        # "yes, but make it $1,900" or "the amount is wrong" after the claim was filed: filing again would do it twice
        run.decision.action = "already_done"
        run.decision.notes.append(f"correction of {slot.name} refused: step {spent} already ran its side effect with it")
        run.executed.append(cmd.name)
        return
    if cmd.name == "CorrectSlot" and cmd.value in (None, ""):
        # "the address is wrong": forget it and go back to the step that asks for it
        run.session.slots.pop(slot.name, None)
        rewind_to_slot(run.agent, run.session, slot.name)
        run.decision.notes.append(f"correction: {slot.name} will be asked again")
        run.executed.append(cmd.name)
        return
    value: Any = coerce(slot.type, cmd.value)
    field_def = run.agent.field(slot.name)
    if value not in (None, "") and field_def is not None and field_def.field_type == "enum" and field_def.allowed_values:
        value = allowed_value(field_def, value)  # "Flood" from a model is water; "presidential suite" is no value
    if value in (None, "") or not slot_value_valid(slot, value, field_def.validation_rules if field_def else None):
        run.decision.invalid_slot = slot.name
        run.decision.notes.append(f"rejected value for slot {slot.name}")
        return
    if held == value:
        return
    run.session.slots[slot.name] = value
    if held not in (None, ""):
        # A changed value invalidates what was built on it: its step runs again from there.
        run.session.confirmed_step = None
        run.session.actions_done_step = None
        rewound = rewind_to_slot(run.agent, run.session, slot.name)
        run.decision.notes.append(f"corrected {slot.name}" + (f", back to step {rewound.id}" if rewound else ""))
    run.executed.append(cmd.name)


def _for_active_flow(run: CommandRun, cmd: Command) -> bool:
    """The value is for the active flow, or for the flow it starts again (`_retried`)."""
    return not cmd.flow or cmd.flow == run.session.active_scenario_id or _retried(run, cmd)


def _retried(run: CommandRun, cmd: Command) -> bool:
    """No flow runs and the value is for the slot whose look-up found nothing last turn: that flow runs again."""
    retry = run.session.retry
    if run.session.active_scenario_id or retry is None or cmd.flow != retry.scenario_id or cmd.slot is None:
        return False
    step = retry_flow(run.agent, run.session, cmd.slot)
    if step is not None:
        run.decision.switched = True
        run.decision.notes.append(f"{cmd.slot} given after its look-up found nothing: {retry.scenario_id} again from step {step.id}")
    return step is not None


def _spent_by(run: CommandRun, name: str) -> str | None:
    """The step of this flow whose side-effecting action already ran with the value of `name`."""
    scenario = run.agent.scenario(run.session.active_scenario_id)
    for step in scenario.steps if scenario else []:
        if step.id in run.session.effects_done and any(
                (t := run.agent.tool(a)) is not None and t.side_effect and name in read_variables(t) for a in step.action):
            return step.id
    return None


@handles("SetSlot")
def _set(run: CommandRun, cmd: Command) -> None:
    _set_slot(run, cmd)


@handles("CorrectSlot")
def _correct(run: CommandRun, cmd: Command) -> None:
    _set_slot(run, cmd)


@handles("CancelFlow")
def _cancel(run: CommandRun, cmd: Command) -> None:
    if not run.session.active_scenario_id:
        return
    run.decision.notes.append(f"cancelled {run.session.active_scenario_id}")
    # a called flow (an identity check) is cancelled with the flows that called it: the request the customer
    # stopped is the first of them, and the answer names it
    run.decision.cancelled_scenario_id = first_caller(run.session) or run.session.active_scenario_id
    offered = end_flow(run.session)
    run.decision.resume_offered_id = offered.scenario_id if offered else None
    run.decision.action = "cancelled"
    run.executed.append("CancelFlow")


@handles("AffirmConfirmation")
def _affirm(run: CommandRun, cmd: Command) -> None:
    offer = run.session.offer
    if offer is not None and not run.session.active_scenario_id:
        choices = offer.choices()
        index = cmd.value if isinstance(cmd.value, int) and 0 <= cmd.value < len(choices) else 0
        if offer.kind == "resume":
            frame = resume_flow(run.session, run.agent)
            run.decision.notes.append(f"resumed {frame.scenario_id if frame else '?'} at the customer's yes")
        elif (scenario := run.agent.scenario(choices[index])) is not None:
            start_flow(run.agent, run.session, scenario)
            run.decision.switched = True
            run.decision.notes.append(f"started {scenario.id} at the customer's answer")
            _set_offered_values(run, offer, scenario.id)
        run.session.offer = None
        run.executed.append("AffirmConfirmation")
    elif run.session.flow_state == "confirming" and run.session.active_step_id:
        if any(c in run.executed for c in ("SetSlot", "CorrectSlot", "Clarify")):
            # "yes, and make it for two": a value changed with the yes, so the yes confirmed what was asked before
            # the change, not what would now run; the step asks again with the new value (or about the detail)
            run.decision.notes.append("a value changed or asked about with the yes: the confirmation is asked again")
            return
        run.session.confirmed_step = run.session.active_step_id
        run.executed.append("AffirmConfirmation")


def _set_offered_values(run: CommandRun, offer: Offer, scenario_id: str) -> None:
    """The values the customer gave in the message the offer answered, set as if given now: each through the same
    checks as any slot value (what the customer may set, its type, allowed values, validation rules)."""
    values = offer.values.get(scenario_id, {})
    for slot, value in values.items():
        if not customer_may_set(run.agent, slot):
            run.decision.notes.append(f"ignored offered value for {slot}: not the customer's to set")
            continue
        _set_slot(run, Command(name="SetSlot", flow=scenario_id, slot=slot, value=value))
    if values:
        run.decision.notes.append(f"values from the message before the question ({offer.read_by or '?'} reading): "
                                  f"{', '.join(sorted(values))}")


@handles("DenyConfirmation")
def _deny(run: CommandRun, cmd: Command) -> None:
    if run.session.offer is not None and not run.session.active_scenario_id:
        run.decision.notes.append(f"the customer declined: {run.session.offer.kind} {run.session.offer.scenario_id}")
        drop_offer(run.session)
        run.decision.action = "declined"
        run.executed.append("DenyConfirmation")
        return
    if run.session.flow_state not in ("confirming", "blocked"):
        return  # "no" after a guard's refusal leaves the flow as it leaves a question
    run.executed.append("DenyConfirmation")
    if any(c in run.executed for c in ("SetSlot", "CorrectSlot")):
        return  # "no, change the date": the correction stands, the step asks again
    _cancel(run, Command(name="CancelFlow", flow=run.session.active_scenario_id))


@handles("ChitChat")
def _chitchat(run: CommandRun, cmd: Command) -> None:
    run.executed.append("ChitChat")


@handles("HumanHandoff")
def _handoff(run: CommandRun, cmd: Command) -> None:
    run.decision.action = "escalate"
    run.executed.append("HumanHandoff")
    session = run.session
    scenario = run.agent.scenario(session.active_scenario_id)
    if scenario is None:
        return
    # The customer was told a person takes over: the flow acts no more on the business's systems ("December 5",
    # "yes" after it start nothing); asking for it again starts it afresh. The person is told where it stood.
    run.decision.escalation_reason = (f"The customer asked for a person during flow '{scenario.name}' at step "
                                      f"'{session.active_step_id}'.")
    end_flow(session)
    session.flow_stack.clear()  # no interrupted flow is offered back either
    session.offer = None
    run.decision.notes.append(f"handed to a person: {scenario.id} ended, none of its tools runs unless the customer "
                              "starts it again")


@handles("Clarify")
def _clarify(run: CommandRun, cmd: Command) -> None:
    if cmd.topic == DETAIL:
        # a yes that referred to a shown value without stating it: the step asks about that detail (its question
        # is focal.dialogue.confirmation_reply.question_to_ask); the yes confirms nothing yet
        run.decision.notes.append(f"the confirmation asks whether {cmd.value} is the {cmd.slot} shown")
        run.executed.append("Clarify")
        return
    run.decision.action = "clarify"
    run.executed.append("Clarify")


# Explicit exits first ("cancel this and check my booking": the cancel frees the way, so the new
# flow starts without having to beat stickiness), then StartFlow (slot values in the same message
# belong to the flow it starts), then slot values (so "no, make it B-124" is a correction before
# it is a denial), then the rest.
WITHDRAWS_APPROVAL = {"SetSlot", "CorrectSlot", "CancelFlow", "DenyConfirmation", "StartFlow", "HumanHandoff"}
PRECEDENCE = {"CancelFlow": 0, "HumanHandoff": 0, "StartFlow": 1, "SetSlot": 2, "CorrectSlot": 2, "Clarify": 2}


def execute(run: CommandRun, commands: list[Command]) -> None:
    offer = run.session.offer
    retry_set = run.session.retry
    for cmd in sorted(commands, key=lambda c: PRECEDENCE.get(c.name, 3)):
        handler = HANDLERS.get(cmd.name)
        if handler is not None:
            handler(run, cmd)
    if run.session.pending_approval_id and set(run.executed) & WITHDRAWS_APPROVAL:
        # "no", a correction, another flow: the request waiting for approval is no longer what the customer asks for;
        # approving it later runs nothing (pipeline/approval_answer.py), a later yes decides afresh
        run.decision.notes.append(f"approval {run.session.pending_approval_id} withdrawn by {', '.join(run.executed)}")
        run.session.pending_approval_id = None
    if offer is not None and run.session.offer is offer:
        drop_offer(run.session)  # the customer moved on without answering: the offer lapses
        run.decision.notes.append(f"offer to {offer.kind} {offer.scenario_id} lapsed")
    if run.session.retry is retry_set:
        run.session.retry = None  # a correction of the value not found is read only in the turn right after
