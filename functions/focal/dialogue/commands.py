"""Command execution: one small handler per dialogue command (seed 003), run in message order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from focal.dialogue.flow import end_flow, slot_value_valid, start_flow
from focal.models.agent import AgentConfig, Slot
from focal.models.context import Command, Context
from focal.models.session import Session
from focal.models.turn import RouteDecision
from focal.sensing.extraction import coerce


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
    if scenario is None or run.session.active_scenario_id == scenario.id:
        return
    nav = run.agent.navigation
    score = float(cmd.value) if isinstance(cmd.value, int | float) else run.context.intent_confidence
    if run.session.active_scenario_id:
        held = _intent_score(run, run.session.active_scenario_id) + nav.stickiness_boost
        if score < nav.exit_intent_threshold or score <= held:
            run.decision.notes.append(
                f"stayed in {run.session.active_scenario_id}: {scenario.id} scored {score:.2f} "
                f"(exit needs ≥ {nav.exit_intent_threshold:.2f} and > {held:.2f} with stickiness)"
            )
            return
    start_flow(run.agent, run.session, scenario)
    run.decision.switched = True
    run.decision.notes.append(f"started {scenario.id} ({score:.2f})")
    run.executed.append("StartFlow")


def _slot(run: CommandRun, name: str | None) -> Slot | None:
    scenario = run.agent.scenario(run.session.active_scenario_id)
    if scenario is None or name is None:
        return None
    return next((s for st in scenario.steps for s in st.slots if s.name == name), None)


def _set_slot(run: CommandRun, cmd: Command, overwrite: bool) -> None:
    slot = _slot(run, cmd.slot)
    if slot is None:
        run.decision.notes.append(f"ignored slot {cmd.slot!r}: not part of the active flow")
        return
    value: Any = coerce(slot.type, cmd.value)
    if value in (None, "") or not slot_value_valid(slot, value):
        run.decision.invalid_slot = slot.name
        run.decision.notes.append(f"rejected value for slot {slot.name}")
        return
    if run.session.slots.get(slot.name) not in (None, "") and not overwrite:
        if run.session.slots[slot.name] == value:
            return
    if run.session.slots.get(slot.name) != value:
        run.session.confirmed_step = None  # a changed value needs a fresh confirmation
        run.session.actions_done_step = None
    run.session.slots[slot.name] = value
    run.executed.append(cmd.name)


@handles("SetSlot")
def _set(run: CommandRun, cmd: Command) -> None:
    _set_slot(run, cmd, overwrite=True)


@handles("CorrectSlot")
def _correct(run: CommandRun, cmd: Command) -> None:
    _set_slot(run, cmd, overwrite=True)


@handles("CancelFlow")
def _cancel(run: CommandRun, cmd: Command) -> None:
    if not run.session.active_scenario_id:
        return
    run.decision.notes.append(f"cancelled {run.session.active_scenario_id}")
    run.decision.completed_scenario_id = run.session.active_scenario_id
    resumed = end_flow(run.session)
    run.decision.resumed_scenario_id = resumed.scenario_id if resumed else None
    run.decision.action = "cancelled"
    run.executed.append("CancelFlow")


@handles("AffirmConfirmation")
def _affirm(run: CommandRun, cmd: Command) -> None:
    if run.session.flow_state == "confirming" and run.session.active_step_id:
        run.session.confirmed_step = run.session.active_step_id
        run.executed.append("AffirmConfirmation")


@handles("DenyConfirmation")
def _deny(run: CommandRun, cmd: Command) -> None:
    if run.session.flow_state != "confirming":
        return
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


@handles("Clarify")
def _clarify(run: CommandRun, cmd: Command) -> None:
    run.decision.action = "clarify"
    run.executed.append("Clarify")


def execute(run: CommandRun, commands: list[Command]) -> None:
    # StartFlow first (slot values in the same message belong to the flow it starts), then slot
    # values (so "no, make it A1003" is a correction before it is a denial), then the rest.
    rank = {"StartFlow": 0, "SetSlot": 1, "CorrectSlot": 1}
    ordered = sorted(commands, key=lambda c: rank.get(c.name, 2))
    for cmd in ordered:
        handler = HANDLERS.get(cmd.name)
        if handler is not None:
            handler(run, cmd)
