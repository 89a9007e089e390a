"""Putting what a turn's tools did onto a session that another turn saved meanwhile.

A turn whose side effects ran must never lose the record of them: when its session write loses the
version race, the effects (tool outputs, the step whose action ran, a resolved approval, its claim)
are applied to the latest stored session, and the flow moves on from there if it is still at that
step. A step action that failed is put there the same way (dialogue/action_outcome): not done and asked again when
nothing took effect, waiting at the step when its outcome is unknown.
Everything else the turn changed (slots, offers, rule counts) is dropped: it cannot be merged
safely, and the other turn's view wins.
"""

from __future__ import annotations

from focal.dialogue import running_totals
from focal.dialogue.action_outcome import hold_failed, hold_unknown, note_effects, outcome
from focal.dialogue.flow import progress
from focal.dialogue.identity_checks import merged
from focal.flow_reading import current_step
from focal.models.agent import AgentConfig
from focal.models.session import Session
from focal.models.turn import ToolCall, ToolsOutput, TurnState
from focal.variables import known_variables


def effects(agent: AgentConfig, tools: ToolsOutput) -> list[ToolCall]:
    """The side-effecting calls the turn ran or tried (whatever their outcome: a failed one is recorded too)."""
    return [c for c in tools.tool_calls if c.status in ("ok", "unknown", "error") and (tool := agent.tool(c.tool_id))
            and tool.side_effect]


def _step_of(trigger: str) -> str | None:
    """'step rebook.confirm_change' → 'rebook.confirm_change'."""
    return trigger.split(" ", 1)[1] if trigger.startswith("step ") else None


def _calls_at(agent: AgentConfig, state: TurnState, key: str | None) -> list[ToolCall]:
    """The turn's side-effecting calls of the step `key` ('flow.step'): its action's, or an approved request's."""
    calls = effects(agent, state.tools)
    if key is not None and state.resume is not None and state.resume.step == key:
        return calls
    return [c for c in calls if key is not None and _step_of(c.trigger) == key]


def apply_effects(agent: AgentConfig, state: TurnState, fresh: Session) -> None:
    """Apply the turn's tool outputs and its step action's outcome onto `fresh` (the latest stored session)."""
    fresh.action_claims.pop(state.request.turn_id, None)
    if state.session is not None:  # a failed identity check is never lost to the race (focal.dialogue.identity_checks)
        fresh.failed_identity_checks = merged(fresh.failed_identity_checks, state.session.failed_identity_checks)
        fresh.running_totals = running_totals.merged(fresh.running_totals, state.session.running_totals)
    ran = [c for c in state.tools.tool_calls if c.status == "ok"]
    for call in ran:
        fresh.variables.update(call.outputs)
    resume = state.resume
    if resume is not None and fresh.pending_approval_id == resume.approval_id:
        fresh.pending_approval_id = None
    key = f"{fresh.active_scenario_id}.{fresh.active_step_id}" if fresh.active_scenario_id else None
    calls, step = _calls_at(agent, state, key), current_step(agent, fresh)
    done = outcome(agent, calls) if calls and step is not None else None
    if done == "unknown" and step is not None:
        hold_unknown(fresh, step.id)  # it may have run: the other turn's view must not run it again
        note_effects(agent, fresh, step.id, [c.tool_id for c in calls])
    elif done == "failed" and step is not None:
        hold_failed(fresh, step.id)  # the claim marked it taken: nothing happened, so it is not
    elif done == "done" and step is not None:
        fresh.confirmed_step = fresh.actions_done_step = step.id
        progress(agent, fresh, known_variables(agent, fresh, state.profile))
