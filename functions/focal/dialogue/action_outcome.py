"""What an action leaves on the session (`note_effects`); a failed one is never a step taken as done.

An action's calls end `ok`, `error` (nothing of the call took effect) or `unknown` (a side-effecting call that may
have taken effect: `tool_calls.failure_status`). The action as a whole (`outcome`):

- done: every call ran;
- failed: nothing took effect. The step is not done, the yes that ran it is spent, and the customer is told it did
  not go through and asked whether to try again: only a fresh yes runs it again, once (`hold_failed`);
- unknown: a call may have taken effect, or a side-effecting call of the action ran before another failed. It is
  never run again and never reported done: the flow waits at the step (`hold_unknown`), and the customer is told the
  outcome is being checked (handed to a person when the agent has a handoff tool). The call itself, its tool and
  arguments, is remembered for the session (`remember_unknown`): the same call is never made again, though the
  customer cancels and starts the request afresh and says yes again (`unknown_before`).

The texts (`failure_texts`) are engine texts, put into the customer's language like every other one.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from focal.models.agent import AgentConfig
from focal.models.engine_texts import english
from focal.models.session import Session
from focal.models.turn import ToolCall, TurnState

Outcome = Literal["done", "failed", "unknown"]
ACTION_FAILED = english("action_failed")
ACTION_RETRY = english("action_retry")
ACTION_UNKNOWN = english("action_unknown")
HANDED_OVER = english("handoff")


def outcome(agent: AgentConfig, calls: list[ToolCall]) -> Outcome:
    if all(c.status == "ok" for c in calls):
        return "done"
    if any(c.status == "unknown" for c in calls):
        return "unknown"
    if any(c.status == "ok" and (t := agent.tool(c.tool_id)) is not None and t.side_effect for c in calls):
        return "unknown"  # part of the action took effect: running it again would repeat that part
    return "failed"


def note_effects(agent: AgentConfig, session: Session, step_id: str | None, tool_ids: list[str]) -> None:
    """A step whose side-effecting tools ran (or may have): a later correction of their inputs must not run them
    again. Any side effect also makes what the interrupted flows' tools read stale (a trip changed under a paused
    cancellation)."""
    if not any((t := agent.tool(tool_id)) is not None and t.side_effect for tool_id in tool_ids):
        return
    for frame in session.flow_stack:
        frame.stale = True
    if step_id and step_id not in session.effects_done:
        session.effects_done = [*session.effects_done, step_id]


def hold_failed(session: Session, step_id: str | None) -> None:
    """Nothing of the step's action took effect: it is not done (the claim marked it taken before it ran), the yes
    is spent, and the step asks again whether to try."""
    if session.actions_done_step == step_id:
        session.actions_done_step = None
    session.confirmed_step = None
    session.action_failed_step = step_id
    session.flow_state = "confirming" if step_id is not None else "error"


def hold_unknown(session: Session, step_id: str | None) -> None:
    """The step's action may have taken effect: it stays taken (never run again) and the flow waits at the step."""
    session.confirmed_step = None
    session.action_failed_step = None
    if step_id is not None:
        session.actions_done_step = step_id
        if step_id not in session.outcome_unknown:
            session.outcome_unknown = [*session.outcome_unknown, step_id]
    session.flow_state = "error"


def _digest(call: ToolCall) -> str:
    canonical = json.dumps([call.tool_id, call.arguments], sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def remember_unknown(session: Session, calls: list[ToolCall]) -> None:
    """The calls whose outcome is unknown, for the session's lifetime."""
    for call in calls:
        if call.status == "unknown" and (d := _digest(call)) not in session.unknown_calls:
            session.unknown_calls = [*session.unknown_calls, d]


def unknown_before(agent: AgentConfig, session: Session | None, calls: list[ToolCall]) -> bool:
    """Whether a call of these, one not safe to repeat, is one whose earlier outcome is unknown (same tool, same
    arguments). A tool that may be retried (`may_retry`: idempotent) runs again: repeating it changes nothing."""
    if session is None or not session.unknown_calls:
        return False
    return any((t := agent.tool(c.tool_id)) is not None and t.side_effect and not t.may_retry
               and _digest(c) in session.unknown_calls for c in calls)


def failure_texts(agent: AgentConfig, state: TurnState) -> list[str] | None:
    """What the customer hears when the turn's answer is a tool error (None: no action of this kind failed).
    Unknown: it is being checked (with the handoff's own words when a person was called this turn); failed: it did not
    go through, and whether to try again when the step waits for that yes."""
    session = state.session
    calls = state.tools.tool_calls
    waiting = session is not None and session.active_step_id in (session.outcome_unknown if session else [])
    if waiting or any(c.status == "unknown" for c in calls):
        handed = agent.handoff_tool is not None and any(c.tool_id == agent.handoff_tool and c.status == "ok" for c in calls)
        return [ACTION_UNKNOWN, HANDED_OVER] if handed else [ACTION_UNKNOWN]
    if any(c.status == "error" and (t := agent.tool(c.tool_id)) is not None and t.side_effect for c in calls):
        asks = session is not None and session.action_failed_step is not None and \
            session.action_failed_step == session.active_step_id and session.flow_state == "confirming"
        return [ACTION_FAILED, ACTION_RETRY] if asks else [ACTION_FAILED]
    return None
