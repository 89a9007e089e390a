"""Approval gates: before a side-effecting tool runs, the turn's graded confidence decides.

    ≥ approval.execute_threshold   → execute
    ≥ approval.approval_threshold  → an approval request is stored, nothing runs, the customer is told
    below                          → clarify with suggested questions (or rejected, clarification off)
    an error (unknown tool, no approval store, the assessment failing) → rejected, nothing runs

A request stores the exact arguments of the action and the guard verdicts on them. It is answered
later by `focal.pipeline.approval_answer.answer` (`focal approve ID` / `focal deny ID` locally, the
approval endpoint in AWS), which resumes the turn pipeline from the tools stage. `EngineEvent`s go to
whatever `EventSink` the deps carry (EventBridge `PutEvents` in AWS).
"""

from __future__ import annotations

import re
import uuid
from typing import Any, Literal

from focal.dialogue.confidence import Assessment, assess, plain
from focal.dialogue.tool_calls import arguments_for
from focal.flow_reading import current_step
from focal.models.agent import AgentConfig
from focal.models.approval import ApprovalRequest, EngineEvent, EventType
from focal.models.engine_texts import english
from focal.models.session import Session
from focal.models.turn import ToolCall, TurnState
from focal.tool_inputs import read_variables
from focal.turn.deps import Deps
from focal.variables import known_variables, render, spoken

Path_ = Literal["execute", "approval", "clarify", "rejected"]
MAX_SAVE_TRIES = 3


def publish(deps: Deps, kind: EventType, tenant_id: str, agent_id: str, session_id: str,
            turn_id: str | None, request_id: str | None, **data: Any) -> None:
    if deps.events is None:
        return
    deps.events.publish(EngineEvent(type=kind, at=deps.clock(), tenant_id=tenant_id, agent_id=agent_id,
                                    session_id=session_id, turn_id=turn_id, request_id=request_id, data=data))


def publish_turn(deps: Deps, state: TurnState, kind: EventType, request_id: str | None, **data: Any) -> None:
    r = state.request
    publish(deps, kind, r.tenant_id, r.agent_id, r.session_id, r.turn_id, request_id, **data)


def tool_result_event(deps: Deps, state: TurnState, call: Any, request_id: str | None = None) -> None:
    """Status and timing only: arguments, outputs and an error's text may hold personal data (an error
    is named by its kind: "tool 'x' failed: ValueError: …+44 20…" is published as ValueError)."""
    publish_turn(deps, state, "tool_result", request_id, tool_id=call.tool_id, status=call.status,
                  error=error_kind(call.error), ms=call.ms, trigger=call.trigger)


def error_kind(error: str | None) -> str | None:
    if not error:
        return None
    found = re.search(r"failed: ([A-Za-z_][\w.]*)", error)
    return found.group(1) if found else "error"


def band(agent: AgentConfig, score: float) -> Path_:
    a = agent.approval
    if score >= a.execute_threshold:
        return "execute"
    if score >= a.approval_threshold:
        return "approval"
    return "clarify" if agent.feature_on("clarification") else "rejected"


def step_key(session: Session) -> str | None:
    return f"{session.active_scenario_id}.{session.active_step_id}" if session.active_scenario_id else None


def record_assessment(state: TurnState, assessment: Assessment) -> None:
    state.confidence = assessment.score
    state.tools.confidence_factors = dict(assessment.factors)
    state.tools.confidence_reasons = dict(assessment.reasons)


def assessment_for(state: TurnState, agent: AgentConfig, tool_ids: list[str]) -> Assessment:
    return assess(state, agent, tool_ids) if agent.feature_on("graded_confidence") else plain(state, agent, tool_ids)


def _arguments(state: TurnState, agent: AgentConfig, tool_ids: list[str]) -> dict[str, Any]:
    """The arguments the action's tools would get now (as `tool_calls.prepare` fixes them)."""
    out: dict[str, Any] = {}
    for tool_id in tool_ids:
        out.update(arguments_for(agent, state, tool_id))
    return out


def _questions(state: TurnState, agent: AgentConfig, tool_ids: list[str]) -> list[str]:
    """What to ask before acting: each missing argument by its slot prompt, then the step's own question."""
    assert state.session is not None
    known = known_variables(agent, state.session, state.profile)
    step = current_step(agent, state.session)
    scenario = agent.scenario(state.session.active_scenario_id)
    slots = {s.name: s for st in (scenario.steps if scenario else []) for s in st.slots}
    questions: list[str] = []
    for tool_id in tool_ids:
        tool = agent.tool(tool_id)
        for name in read_variables(tool, required_only=True) if tool else []:
            if known.get(name) is None:
                fld = agent.field(name)
                questions.append(slots[name].prompt if name in slots else
                                 english("ask_detail").replace(
                                     "{label}", (fld.display_name if fld and fld.display_name else name.replace("_", " ")).lower()))
    if step is not None and step.confirmation_prompt:
        questions.append(render(step.confirmation_prompt, spoken(agent, known)))
    elif tool_ids and (tool := agent.tool(tool_ids[0])) is not None:
        questions.append(english("confirm_tool").replace("{what}", (tool.description or tool.id).rstrip(".").lower()))
    return list(dict.fromkeys(q for q in questions if q))


def _call_arguments(calls: list[ToolCall]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for call in calls:
        out.update(call.arguments)
    return out


def _decide(state: TurnState, agent: AgentConfig, deps: Deps, tool_ids: list[str]) -> tuple[Assessment, Path_, str]:
    """The assessment, the path it leads to and why. An unknown tool, an assessment that fails or an approval with
    no store to keep it rejects: an error in the decision never executes."""
    unknown = [t for t in tool_ids if agent.tool(t) is None]
    try:
        assessment = assessment_for(state, agent, tool_ids)
        path: Path_ = "rejected" if unknown else band(agent, assessment.score)
        reason = f"unknown tool(s) {', '.join(unknown)}" if unknown else f"confidence {assessment.score:.2f}"
    except Exception as exc:  # noqa: BLE001 - an error in the decision rejects, it never executes
        assessment, path, reason = Assessment(score=0.0, factors={}), "rejected", f"assessment failed: {type(exc).__name__}"
    if path == "approval" and deps.approvals is None:
        path, reason = "rejected", "no approval store configured"
    return assessment, path, reason


def _request_approval(state: TurnState, agent: AgentConfig, deps: Deps, tool_ids: list[str], trigger: str,
                      calls: list[ToolCall] | None, confirmed: bool, assessment: Assessment, side: str) -> str:
    """Store the request (the exact arguments and guard verdicts), start its workflow, tell the turn; its id."""
    assert deps.approvals is not None and state.session is not None
    session, now, r = state.session, deps.clock(), state.request
    request = ApprovalRequest(
        approval_id=f"apr-{uuid.uuid4().hex[:20]}", tenant_id=r.tenant_id, agent_id=r.agent_id,
        session_id=r.session_id, customer_id=session.customer_id, turn_id=r.turn_id, tool_id=side,
        tools=list(tool_ids), step=step_key(session) if trigger.startswith("step") else None, trigger=trigger,
        arguments=_call_arguments(calls) if calls is not None else _arguments(state, agent, tool_ids),
        guard_verdicts=[v.model_dump() for c in (calls or []) for v in c.guards],
        customer_confirmed=confirmed, confidence=assessment.score,
        confidence_factors=dict(assessment.factors), created_at=now,
        expires_at=now + agent.approval.timeout_seconds,
    )
    deps.approvals.create(request)
    if deps.approval_workflow is not None:  # AWS: a STANDARD execution waits on a task token
        deps.approval_workflow.start(request)
    session.pending_approval_id = request.approval_id
    state.tools.approval = request.summary()
    state.route.decision.action = "awaiting_approval"
    publish_turn(deps, state, "approval_requested", request.approval_id, tool_id=side, tools=list(tool_ids),
                 step=request.step, confidence=assessment.score, factors=dict(assessment.factors),
                 expires_at=request.expires_at, argument_names=sorted(request.arguments))
    return request.approval_id


def _ask_again(state: TurnState, agent: AgentConfig) -> None:
    """Back to asking: a "no" withdraws, a later clear "yes" meets the pending request (held) or, once it has
    expired, decides afresh. (A guard's block withdraws the question instead: nothing could run on a yes.)"""
    assert state.session is not None
    step = current_step(agent, state.session)
    if step is not None and step.requires_confirmation:
        state.session.confirmed_step, state.session.flow_state = None, "confirming"


def _clarify(state: TurnState, agent: AgentConfig, deps: Deps, tool_ids: list[str], assessment: Assessment,
             side: str) -> str:
    request_id = f"clr-{uuid.uuid4().hex[:20]}"
    state.suggested_questions = _questions(state, agent, tool_ids)
    state.route.decision.action = "clarify_action"
    publish_turn(deps, state, "clarification_requested", request_id, tool_id=side,
                 confidence=assessment.score, factors=dict(assessment.factors), questions=len(state.suggested_questions))
    return request_id


def gate(state: TurnState, agent: AgentConfig, deps: Deps, tool_ids: list[str], trigger: str,
         calls: list[ToolCall] | None = None, confirmed: bool = False) -> Path_:
    """Decide whether `tool_ids` (at least one side-effecting) run now; act on anything but execute.

    `calls` are the prepared calls (exact arguments, guard verdicts): an approval request stores them,
    and approving it re-checks those guards on those arguments."""
    assert state.session is not None
    d = state.route.decision
    assessment, path, reason = _decide(state, agent, deps, tool_ids)
    if agent.feature_on("graded_confidence"):
        record_assessment(state, assessment)
    side = next(t for t in tool_ids if (tool := agent.tool(t)) is None or tool.side_effect)
    request_id = None
    d.notes.append(f"approval gate on {', '.join(tool_ids)} ({trigger}): {path} ({reason})")
    if path == "approval":
        request_id = _request_approval(state, agent, deps, tool_ids, trigger, calls, confirmed, assessment, side)
    if path != "execute" and trigger.startswith("step"):
        _ask_again(state, agent)
    if path == "clarify":
        request_id = _clarify(state, agent, deps, tool_ids, assessment, side)
    elif path == "rejected":
        d.action = "action_rejected"
        d.notes.append(f"not run: {reason}")
    state.tools.request_id = request_id or state.tools.request_id
    publish_turn(deps, state, "execution_decision", request_id, path=path, tool_id=side, tools=list(tool_ids),
                 confidence=assessment.score, factors=dict(assessment.factors), reason=reason)
    return path


def held(state: TurnState, agent: AgentConfig, deps: Deps, tool_ids: list[str]) -> bool:
    """An approval already waits for this very action: don't run it, don't ask twice.

    A request for another action (other arguments, another step) is superseded; an expired one is
    marked so; either way the gate then decides afresh."""
    session = state.session
    assert session is not None
    if not session.pending_approval_id or deps.approvals is None:
        return False
    now = deps.clock()
    r = state.request
    pending = deps.approvals.get(r.tenant_id, session.pending_approval_id, now)
    same = (pending is not None and pending.tools == list(tool_ids) and pending.step == step_key(session)
            and pending.arguments == _arguments(state, agent, tool_ids))
    if pending is not None and pending.state == "awaiting_approval" and same:
        state.tools.approval = pending.summary(now)
        state.tools.request_id = pending.approval_id
        state.route.decision.action = "awaiting_approval"
        state.route.decision.notes.append(f"approval {pending.approval_id} still pending: nothing run")
        return True
    if pending is not None and pending.state in ("awaiting_approval", "expired"):
        expired = pending.state == "expired"
        outcome: dict[str, Any] = {"ran": [], "reason": "expired" if expired else "superseded: the conversation moved on"}
        if deps.approvals.transition(r.tenant_id, pending.approval_id, "awaiting_approval", "expired", now, outcome):
            publish_turn(deps, state, "approval_expired", pending.approval_id, reason=outcome["reason"])
    session.pending_approval_id = None
    return False
