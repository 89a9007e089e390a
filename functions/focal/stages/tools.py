"""Stage 4 — tools: the tools of matched rules and of the step being completed; outputs → variables.

A failing tool never loses the turn: it is recorded as a structured tool error, the flow is marked
`error`, and generate answers safely.
"""

from __future__ import annotations

import time
from typing import Any

from focal.dialogue.flow import current_step, progress
from focal.dialogue.variables import known_variables
from focal.errors import ToolError
from focal.models.agent import AgentConfig
from focal.models.turn import ToolCall, TurnState
from focal.pipeline.deps import Deps
from focal.sensing.extraction import coerce
from focal.stages.route import apply_progress

MAX_ACTION_ROUNDS = 3


def call_tool(state: TurnState, agent: AgentConfig, deps: Deps, tool_id: str, trigger: str) -> ToolCall:
    tool = agent.tool(tool_id)
    call = ToolCall(tool_id=tool_id, trigger=trigger)
    if tool is None:
        call.status, call.error = "error", "unknown tool"
        return call
    variables = known_variables(agent, state.session, state.profile)
    args: dict[str, Any] = {name: variables.get(name) for name in tool.input if variables.get(name) is not None}
    missing = [name for name, spec in tool.input.items() if spec.required and name not in args]
    call.arguments = args
    if missing:
        call.status, call.error = "skipped", f"missing argument(s): {', '.join(missing)}"
        return call
    started = time.perf_counter()
    try:
        result = deps.tools.run(agent, tool, args)
    except ToolError as exc:
        call.status, call.error = "error", str(exc)
        return call
    finally:
        call.ms = round((time.perf_counter() - started) * 1000, 3)
    assert state.session is not None
    for key, var in tool.output.items():
        if key in result:
            field = agent.field(var)
            value = coerce(field.field_type, result[key]) if field else result[key]
            state.session.variables[var] = value
            call.outputs[var] = value
    return call


def run(state: TurnState, deps: Deps) -> TurnState:
    r = state.request
    agent = deps.configs.get_agent(r.tenant_id, r.agent_id)
    session = state.session
    assert session is not None
    for rule_id in [m.rule_id for m in state.matched_rules]:
        rule = agent.rule(rule_id)
        for tool_id in rule.attached_tool_ids if rule else []:
            state.tool_calls.append(call_tool(state, agent, deps, tool_id, f"rule {rule_id}"))

    for _ in range(MAX_ACTION_ROUNDS):
        pending, state.decision.pending_tools = state.decision.pending_tools, []
        if not pending:
            break
        step = current_step(agent, session)
        calls = [call_tool(state, agent, deps, tool_id, f"step {session.active_step_id}") for tool_id in pending]
        state.tool_calls.extend(calls)
        if any(c.status != "ok" for c in calls):
            session.flow_state = "error"
            state.decision.action = "tool_error"
            state.decision.notes.append("a step action failed; the flow waits in state error")
            break
        session.actions_done_step = step.id if step else None
        apply_progress(state, agent, progress(agent, session, known_variables(agent, session, state.profile)))
    return state
