"""Stage 4 — tools: the tools of matched rules and of the step being completed; outputs → variables.

A failing tool never loses the turn: it is recorded as a structured tool error, the flow is marked
`error`, and generate answers safely.

Seed 004: with `features.graded_confidence` the turn's confidence is graded here
(`dialogue/confidence.py`); with `features.approval_gates` a side-effecting tool runs only when the
gate says execute (`dialogue/approvals.py`: otherwise an approval request, a clarification, or a
rejection), and an action already waiting for approval is never run a second time.

Seed 002: around the step's actions, `dialogue/resolution.py` resolves the variables the turn needs
(session → profile → read-only tools, at most 3 rounds → ask the customer).
"""

from __future__ import annotations

import time
from typing import Any

from focal.dialogue import approvals, resolution
from focal.dialogue.confidence import assess
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


def _attached(agent: AgentConfig, rule_id: str) -> list[str]:
    rule = agent.rule(rule_id)
    return list(rule.attached_tool_ids) if rule else []


def _side_effects(agent: AgentConfig, tool_ids: list[str]) -> bool:
    """Whether the gate applies: a side-effecting tool, or one the agent does not define (rejected)."""
    return any((tool := agent.tool(t)) is None or tool.side_effect for t in tool_ids)


def run(state: TurnState, deps: Deps) -> TurnState:
    r = state.request
    agent = deps.configs.get_agent(r.tenant_id, r.agent_id)
    session = state.session
    assert session is not None
    gates = agent.feature_on("approval_gates")
    rule_tools = [(m.rule_id, tool_id) for m in state.matched_rules for tool_id in _attached(agent, m.rule_id)]
    if agent.feature_on("graded_confidence"):
        # The turn's confidence: for what it is about to run (a gate below may re-assess its own action).
        approvals.record_assessment(state, assess(state, agent, [t for _, t in rule_tools] + state.decision.pending_tools))

    def run_calls(tool_ids: list[str], trigger: str) -> list[ToolCall]:
        calls = [call_tool(state, agent, deps, tool_id, trigger) for tool_id in tool_ids]
        state.tool_calls.extend(calls)
        if agent.features.enabled:
            for call in calls:
                approvals.tool_result_event(deps, state, call)
        return calls

    for rule_id, tool_id in rule_tools:
        trigger = f"rule {rule_id}"
        if gates and _side_effects(agent, [tool_id]) and approvals.gate(state, agent, deps, [tool_id], trigger) != "execute":
            continue
        run_calls([tool_id], trigger)

    def run_one(tool_id: str, trigger: str) -> ToolCall:  # variable resolution: read-only tools only
        return run_calls([tool_id], trigger)[0]

    resolution.before_actions(state, agent, run_one)
    for _ in range(MAX_ACTION_ROUNDS):
        pending, state.decision.pending_tools = state.decision.pending_tools, []
        if not pending:
            break
        step = current_step(agent, session)
        trigger = f"step {session.active_step_id}"
        if gates and _side_effects(agent, pending) and (
            approvals.held(state, agent, deps, pending) or approvals.gate(state, agent, deps, pending, trigger) != "execute"
        ):
            break  # waiting for approval, asking, or rejected: the step's action does not run this turn
        calls = run_calls(pending, trigger)
        if any(c.status != "ok" for c in calls):
            session.flow_state = "error"
            state.decision.action = "tool_error"
            state.decision.notes.append("a step action failed; the flow waits in state error")
            break
        session.actions_done_step = step.id if step else None
        apply_progress(state, agent, progress(agent, session, known_variables(agent, session, state.profile)))
    resolution.after_actions(state, agent, run_one)  # what the answer will say: session → profile → tools → ask
    return state
