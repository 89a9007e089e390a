"""One tool call, from its arguments to the session variables it fills.

`prepare` fixes the call's exact arguments (the turn's variables by the tool's input names, or the
stored arguments of an approved request) and evaluates every action guard in scope on them;
`execute` runs a prepared call that no guard blocked. A side-effecting call carries an idempotency
key (tenant, session, turn, tool, arguments) that the tool receives, so a repeat can be recognised
downstream. Nothing here decides *whether* an action should run (the tools stage and the approval
gate do); it guarantees that no guarded call runs unchecked.

A call an earlier execution of the same turn may already have made (it claimed the session for its
side effects and never finished: a killed process, a taken-over claim, a retried stage) is repeated
only when the tool is safe to repeat (`Tool.may_retry`: no side effect, or declared `idempotent`, so
its own system answers the repeated idempotency key with the first result); any other is
`not_repeated`: it does not run, and its outcome is reported as unknown.

An identity check (`identity_checks`) is counted here, the one place every call runs: a failed one adds to the
session's count, and once the count is spent no identity check runs (`skipped`); the tools stage hands over.

A failed side-effecting call is `error` only when nothing of it took effect, else `unknown` (`failure_status`): the
tools stage lets a step whose action failed run again only after a fresh yes, and never one whose outcome is unknown.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from focal.dialogue import identity_checks, running_totals
from focal.dialogue.tool_outputs import checked_outputs
from focal.enforcement import guards
from focal.enforcement.scope import ActiveScope, turn_scope
from focal.errors import ToolError, ToolOutcomeUnknown, stops_process
from focal.models.agent import AgentConfig, Tool
from focal.models.turn import ToolCall, ToolCallContext, TurnState
from focal.tool_inputs import tool_arguments
from focal.tool_keys import idempotency_key
from focal.turn.deps import Deps
from focal.variables import known_variables


def arguments_for(agent: AgentConfig, state: TurnState, tool_id: str) -> dict[str, Any]:
    tool = agent.tool(tool_id)
    variables = known_variables(agent, state.session, state.profile)
    return tool_arguments(tool, variables) if tool else {}


def prepare(
    state: TurnState, agent: AgentConfig, tool_id: str, trigger: str, *, arguments: dict[str, Any] | None = None,
    confirmed: bool = False, scope: ActiveScope | None = None,
) -> ToolCall:
    """The call with its exact arguments and guard verdicts; status `blocked` when a guard stops it."""
    call = ToolCall(tool_id=tool_id, trigger=trigger)
    tool = agent.tool(tool_id)
    if tool is None:
        call.status, call.error = "error", "unknown tool"
        return call
    call.arguments = dict(arguments) if arguments is not None else arguments_for(agent, state, tool_id)
    variables = known_variables(agent, state.session, state.profile)
    scope = scope or turn_scope(agent, state)
    call.guards = guards.check_call(agent, tool_id, call.arguments, variables, scope, confirmed)
    summed = running_totals.with_totals(agent, tool, call.arguments, state.session)
    if summed:  # a cap on what the customer chooses holds on the conversation's total too
        call.guards = guards.both(call.guards, guards.check_call(agent, tool_id, summed, variables, scope, confirmed))
    stopped = guards.blocked(call.guards)
    if stopped:
        call.status = "blocked"
        call.error = "; ".join(f"guard {v.rule_id}: {v.reason}" for v in stopped)
    return call


def execute(state: TurnState, agent: AgentConfig, deps: Deps, call: ToolCall) -> ToolCall:
    """Run a prepared call (never one a guard blocked); outputs become session variables, only when every
    one fits its variable's declared type (`tool_outputs`): otherwise the call failed and none is kept."""
    tool = agent.tool(call.tool_id)
    if tool is None or call.status in ("blocked", "error"):
        return call
    missing = [name for name, spec in tool.input.items() if spec.required and name not in call.arguments]
    if missing:
        call.status, call.error = "skipped", f"missing argument(s): {', '.join(missing)}"
        return call
    check = identity_checks.is_check(agent, tool)
    if check and identity_checks.exhausted(state.session):
        call.status, call.error = "skipped", identity_checks.EXHAUSTED
        return call
    r = state.request
    if tool.side_effect:
        call.idempotency_key = idempotency_key(r.tenant_id, r.session_id, r.turn_id, tool.id, call.arguments)
    context = ToolCallContext(tenant_id=r.tenant_id, session_id=r.session_id, turn_id=r.turn_id,
                              customer_id=r.customer_id, idempotency_key=call.idempotency_key)
    started = time.perf_counter()
    answered = False
    try:
        answer = deps.tools.run(agent, tool, dict(call.arguments), context)
        answered = True
        values = checked_outputs(agent, tool, answer)
    except ToolError as exc:
        call.status, call.error, call.error_code = failure_status(tool, exc, answered), str(exc), exc.code
        return _counted(agent, tool, call, state)
    except BaseException as exc:  # noqa: BLE001 - whatever a tool runner raises is this call's failure
        if stops_process(exc):
            raise
        call.status, call.error = failure_status(tool, exc, answered), f"tool {tool.id!r} failed: {type(exc).__name__}"
        return _counted(agent, tool, call, state)
    finally:
        call.ms = round((time.perf_counter() - started) * 1000, 3)
    call.status = "ok"
    assert state.session is not None
    running_totals.add(agent, tool, call.arguments, state.session)
    if check:
        identity_checks.count_result(agent, tool, state.session, values)
    state.session.variables.update(values)
    call.outputs.update(values)
    return call


def _counted(agent: AgentConfig, tool: Tool, call: ToolCall, state: TurnState) -> ToolCall:
    """A failed call whose outcome is unknown may have moved its amount: it counts toward the session's totals."""
    if call.status == "unknown" and state.session is not None:
        running_totals.add(agent, tool, call.arguments, state.session)
    return call


def failure_status(tool: Tool, exc: BaseException, answered: bool = False) -> Literal["error", "unknown"]:
    """How a failed call is recorded. `error`: nothing of it took effect (the runner's `ToolError`: refused, invalid,
    the tool's own error, a failure before anything was sent), or it has no side effect to be unsure about.
    `unknown`: a side-effecting call that may have taken effect — the runner says so (`ToolOutcomeUnknown`: a timeout,
    a connection lost once sent), the tool answered and only its answer was unusable (`answered`), or the runner
    failed in a way it does not explain (any other exception)."""
    if not tool.side_effect:
        return "error"
    return "unknown" if answered or isinstance(exc, ToolOutcomeUnknown) or not isinstance(exc, ToolError) else "error"


NOT_REPEATED = "not run again: an earlier attempt may already have run it, so its outcome is unknown"


def may_repeat(agent: AgentConfig, tool_id: str) -> bool:
    tool = agent.tool(tool_id)
    return tool is not None and tool.may_retry


def not_repeated(call: ToolCall) -> ToolCall:
    """A prepared call left unrun because an earlier attempt (of this turn, or the same call whose outcome is
    unknown) may have made it."""
    call.status, call.error = "unknown", NOT_REPEATED
    return call


def call_tool(state: TurnState, agent: AgentConfig, deps: Deps, tool_id: str, trigger: str) -> ToolCall:
    """Prepare and, unless a guard blocks it, run one call on the turn's current variables."""
    return execute(state, agent, deps, prepare(state, agent, tool_id, trigger))
