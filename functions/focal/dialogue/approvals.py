"""Approval gates (seed 004): before a side-effecting tool runs, the turn's graded confidence decides.

    ≥ approval.execute_threshold   → execute
    ≥ approval.approval_threshold  → an approval request is stored, nothing runs, the customer is told
    below                          → clarify with suggested questions (or rejected, clarification off)
    an error (unknown tool, no approval store, the assessment failing) → rejected, nothing runs

An approval is answered later (`answer`: `focal approve ID` / `focal deny ID` locally, the approval
endpoint in AWS). Approving moves the request awaiting → approved with a conditional write first,
then runs the pending tools exactly once through the tools stage's own `call_tool`, advances the
flow, drafts and checks the follow-up answer with the generate and enforce stages, and saves the
session and a turn record. Denying records and runs nothing; a request past its deadline is
expired and a late answer refused.

AWS seam: `answer` is the whole domain operation. The approval route's Lambda parses
`{tenant, approval_id, decision}` and calls it; with a Standard workflow, the request's task
token is stored in `ApprovalRequest.outcome` by the state machine and `SendTaskSuccess` follows
`answer`. `EngineEvent`s go to whatever `EventSink` the deps carry (EventBridge `PutEvents` there).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from focal.dialogue.confidence import Assessment, assess, plain
from focal.dialogue.flow import current_step, progress
from focal.dialogue.variables import known_variables, render
from focal.errors import VersionConflict
from focal.models.agent import AgentConfig
from focal.models.approval import ApprovalRequest, EngineEvent, EventType
from focal.models.context import Context
from focal.models.session import CustomerProfile, Session
from focal.models.turn import TurnRequest, TurnState
from focal.pipeline.deps import Deps

Path_ = Literal["execute", "approval", "clarify", "rejected"]
MAX_SAVE_TRIES = 3


def publish(deps: Deps, kind: EventType, tenant_id: str, agent_id: str, session_id: str,
            turn_id: str | None, request_id: str | None, **data: Any) -> None:
    if deps.events is None:
        return
    deps.events.publish(EngineEvent(type=kind, at=deps.clock(), tenant_id=tenant_id, agent_id=agent_id,
                                    session_id=session_id, turn_id=turn_id, request_id=request_id, data=data))


def _publish_turn(deps: Deps, state: TurnState, kind: EventType, request_id: str | None, **data: Any) -> None:
    r = state.request
    publish(deps, kind, r.tenant_id, r.agent_id, r.session_id, r.turn_id, request_id, **data)


def tool_result_event(deps: Deps, state: TurnState, call: Any, request_id: str | None = None) -> None:
    """Status and timing only: arguments and outputs may hold personal data."""
    _publish_turn(deps, state, "tool_result", request_id, tool_id=call.tool_id, status=call.status,
                  error=call.error, ms=call.ms, trigger=call.trigger)


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
    state.confidence_factors = dict(assessment.factors)
    state.confidence_reasons = dict(assessment.reasons)


def assessment_for(state: TurnState, agent: AgentConfig, tool_ids: list[str]) -> Assessment:
    return assess(state, agent, tool_ids) if agent.feature_on("graded_confidence") else plain(state, agent, tool_ids)


def _arguments(state: TurnState, agent: AgentConfig, tool_ids: list[str]) -> dict[str, Any]:
    known = known_variables(agent, state.session, state.profile)
    names = [n for t in tool_ids if (tool := agent.tool(t)) for n in tool.input]
    return {n: known[n] for n in names if known.get(n) is not None}


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
        for name, spec in (tool.input.items() if tool else []):
            if spec.required and known.get(name) in (None, ""):
                fld = agent.field(name)
                questions.append(slots[name].prompt if name in slots else
                                 f"What is the {(fld.display_name if fld and fld.display_name else name.replace('_', ' ')).lower()}?")
    if step is not None and step.confirmation_prompt:
        questions.append(render(step.confirmation_prompt, known))
    elif tool_ids and (tool := agent.tool(tool_ids[0])) is not None:
        questions.append(f"Do you want me to {(tool.description or tool.id).rstrip('.').lower()}?")
    return list(dict.fromkeys(q for q in questions if q))


def gate(state: TurnState, agent: AgentConfig, deps: Deps, tool_ids: list[str], trigger: str) -> Path_:
    """Decide whether `tool_ids` (at least one side-effecting) run now; act on anything but execute."""
    assert state.session is not None
    session, d = state.session, state.decision
    unknown = [t for t in tool_ids if agent.tool(t) is None]
    try:
        assessment = assessment_for(state, agent, tool_ids)
        path: Path_ = "rejected" if unknown else band(agent, assessment.score)
        reason = f"unknown tool(s) {', '.join(unknown)}" if unknown else f"confidence {assessment.score:.2f}"
    except Exception as exc:  # noqa: BLE001 - seed 004: an error in the decision rejects, it never executes
        assessment, path, reason = Assessment(score=0.0, factors={}), "rejected", f"assessment failed: {type(exc).__name__}"
    if path == "approval" and deps.approvals is None:
        path, reason = "rejected", "no approval store configured"
    if agent.feature_on("graded_confidence"):
        record_assessment(state, assessment)
    side = next(t for t in tool_ids if (tool := agent.tool(t)) is None or tool.side_effect)
    request_id = None
    d.notes.append(f"approval gate on {', '.join(tool_ids)} ({trigger}): {path} ({reason})")

    if path == "approval":
        assert deps.approvals is not None
        now = deps.clock()
        r = state.request
        request = ApprovalRequest(
            approval_id=f"apr-{uuid.uuid4().hex[:20]}", tenant_id=r.tenant_id, agent_id=r.agent_id,
            session_id=r.session_id, customer_id=session.customer_id, turn_id=r.turn_id, tool_id=side,
            tools=list(tool_ids), step=step_key(session) if trigger.startswith("step") else None, trigger=trigger,
            arguments=_arguments(state, agent, tool_ids), confidence=assessment.score,
            confidence_factors=dict(assessment.factors), created_at=now,
            expires_at=now + agent.approval.timeout_seconds,
        )
        deps.approvals.create(request)
        if deps.approval_workflow is not None:  # AWS: a STANDARD execution waits on a task token
            deps.approval_workflow.start(request)
        request_id = request.approval_id
        session.pending_approval_id = request_id
        state.approval = request.summary()
        d.action = "awaiting_approval"
        _publish_turn(deps, state, "approval_requested", request_id, tool_id=side, tools=list(tool_ids),
                      step=request.step, confidence=assessment.score, factors=dict(assessment.factors),
                      expires_at=request.expires_at, argument_names=sorted(request.arguments))
    if path != "execute" and trigger.startswith("step"):
        step = current_step(agent, session)
        if step is not None and step.requires_confirmation:
            # Back to asking: a "no" withdraws, a later clear "yes" meets the pending request (held) or,
            # once it has expired, decides afresh.
            session.confirmed_step, session.flow_state = None, "confirming"
    if path == "clarify":
        request_id = f"clr-{uuid.uuid4().hex[:20]}"
        state.suggested_questions = _questions(state, agent, tool_ids)
        d.action = "clarify_action"
        _publish_turn(deps, state, "clarification_requested", request_id, tool_id=side,
                      confidence=assessment.score, factors=dict(assessment.factors),
                      questions=len(state.suggested_questions))
    elif path == "rejected":
        d.action = "action_rejected"
        d.notes.append(f"not run: {reason}")
    state.request_id = request_id or state.request_id
    _publish_turn(deps, state, "execution_decision", request_id, path=path, tool_id=side, tools=list(tool_ids),
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
        state.approval = pending.summary(now)
        state.request_id = pending.approval_id
        state.decision.action = "awaiting_approval"
        state.decision.notes.append(f"approval {pending.approval_id} still pending: nothing run")
        return True
    if pending is not None and pending.state in ("awaiting_approval", "expired"):
        expired = pending.state == "expired"
        outcome = {"ran": [], "reason": "expired" if expired else "superseded: the conversation moved on"}
        if deps.approvals.transition(r.tenant_id, pending.approval_id, "awaiting_approval", "expired", now, outcome):
            _publish_turn(deps, state, "approval_expired", pending.approval_id, reason=outcome["reason"])
    session.pending_approval_id = None
    return False


# --- answering an approval request ---------------------------------------------------------------


@dataclass
class ApprovalAnswer:
    ok: bool
    approval_id: str
    state: str  # the request's state after the answer (or "unknown")
    message: str
    approval: dict[str, Any] | None = None
    response: str | None = None  # the agent's follow-up answer to the customer, when the action ran
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    turn_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "approval_id": self.approval_id, "approval_state": self.state, "message": self.message,
                "approval": self.approval, "response": self.response, "tool_calls": self.tool_calls,
                "turn_id": self.turn_id}


def _event(deps: Deps, req: ApprovalRequest, kind: EventType, turn_id: str | None = None, **data: Any) -> None:
    publish(deps, kind, req.tenant_id, req.agent_id, req.session_id, turn_id, req.approval_id, **data)


def _refusal(req: ApprovalRequest, now: float) -> str:
    if req.state == "expired":
        return (f"Approval request {req.approval_id} expired {max(0, round(now - req.expires_at))} s ago "
                "(no answer within the timeout); it can no longer be approved or denied, and nothing was run.")
    return f"Approval request {req.approval_id} was already {req.state}; nothing more was done."


def _expire(deps: Deps, req: ApprovalRequest, now: float, reason: str) -> None:
    """Mark an awaiting request expired (once: the conditional write decides who reports it)."""
    assert deps.approvals is not None
    if deps.approvals.transition(req.tenant_id, req.approval_id, "awaiting_approval", "expired", now,
                                 {"ran": [], "reason": reason}):
        _event(deps, req, "approval_expired", reason=reason)


def answer(deps: Deps, tenant_id: str, approval_id: str, approve: bool) -> ApprovalAnswer:
    """Approve or deny a pending request. Approve runs the pending action exactly once."""
    if deps.approvals is None:
        return ApprovalAnswer(False, approval_id, "unknown", "No approval store is configured.")
    now = deps.clock()
    req = deps.approvals.get(tenant_id, approval_id, now)
    if req is None:
        return ApprovalAnswer(False, approval_id, "unknown", f"There is no approval request {approval_id} for this tenant.")
    if req.state == "expired":
        _expire(deps, req, now, "expired")
        return ApprovalAnswer(False, approval_id, "expired", _refusal(req, now), req.summary(now))
    if req.state != "awaiting_approval":
        return ApprovalAnswer(False, approval_id, req.state, _refusal(req, now), req.summary(now))

    session = deps.sessions.get(req.tenant_id, req.agent_id, req.session_id)
    moved_on = (session is None or session.pending_approval_id != req.approval_id
                or (req.step is not None and step_key(session) != req.step))
    if approve and moved_on:
        _expire(deps, req, now, "superseded: the conversation moved on")
        req.state = "expired"
        return ApprovalAnswer(False, approval_id, "expired",
                              f"Approval request {approval_id} no longer applies: the conversation has moved on since "
                              "it was made. Nothing was run.", req.summary(now))

    target = "approved" if approve else "denied"
    decided = deps.approvals.transition(tenant_id, approval_id, "awaiting_approval", target, now,
                                        None if approve else {"ran": [], "reason": "denied"})
    if decided is None:  # another answer won the race, or the deadline passed in between
        latest = deps.approvals.get(tenant_id, approval_id, deps.clock())
        assert latest is not None
        if latest.state == "expired":
            _expire(deps, latest, deps.clock(), "expired")
        return ApprovalAnswer(False, approval_id, latest.state, _refusal(latest, now), latest.summary(now))
    _event(deps, decided, "approval_decided", decision=target, tool_id=decided.tool_id)
    if not approve:
        if session is not None and not moved_on:
            _clear_pending(deps, session, approval_id)
        return ApprovalAnswer(True, approval_id, "denied", f"Approval request {approval_id} denied; nothing was run.",
                              decided.summary(now))
    assert session is not None
    return _run_approved(deps, decided, session, now)


def _clear_pending(deps: Deps, session: Session, approval_id: str) -> None:
    for _ in range(MAX_SAVE_TRIES):
        if session.pending_approval_id != approval_id:
            return
        session.pending_approval_id = None
        try:
            deps.sessions.save(session, expected_version=session.version)
            return
        except VersionConflict:
            fresh = deps.sessions.get(session.tenant_id, session.agent_id, session.session_id)
            if fresh is None:
                return
            session = fresh


def _apply(state: TurnState, agent: AgentConfig, req: ApprovalRequest, session: Session, calls: list[Any]) -> None:
    """Put what the approved tools returned on `session` and move its flow on (as the tools stage does)."""
    from focal.stages.route import apply_progress

    state.session = session
    session.pending_approval_id = None
    for call in calls:
        session.variables.update(call.outputs)
    if any(c.status != "ok" for c in calls):
        session.flow_state = "error"
        state.decision.action = "tool_error"
        state.decision.notes.append("an approved action failed; the flow waits in state error")
        return
    if req.step is not None:
        step = current_step(agent, session)
        session.confirmed_step = step.id if step else None  # the approval stands for the confirmation
        session.actions_done_step = step.id if step else None
        apply_progress(state, agent, progress(agent, session, known_variables(agent, session, state.profile)))


def _run_approved(deps: Deps, req: ApprovalRequest, session: Session, now: float) -> ApprovalAnswer:
    from focal.pipeline.definition import next_stage
    from focal.pipeline.stage_io import run_stage
    from focal.stages.persist import turn_record
    from focal.stages.tools import call_tool

    agent = deps.configs.get_agent(req.tenant_id, req.agent_id)
    profile = deps.profiles.get(req.tenant_id, req.agent_id, session.customer_id) or CustomerProfile(
        tenant_id=req.tenant_id, agent_id=req.agent_id, customer_id=session.customer_id)
    turn_id = f"{req.approval_id}-run"
    request = TurnRequest(tenant_id=req.tenant_id, agent_id=req.agent_id, session_id=req.session_id,
                          customer_id=session.customer_id, turn_id=turn_id, message="")
    state = TurnState(request=request, session=session, profile=profile,
                      context=Context(message="", notes=[f"approval {req.approval_id} approved"]))
    state.decision.scenario_id, state.decision.step_id = session.active_scenario_id, session.active_step_id
    state.decision.notes.append(f"approved action {', '.join(req.tools)} (request {req.approval_id})")

    # Exactly once: the conditional transition above is the only way here; the tools run now.
    calls = [call_tool(state, agent, deps, tool_id, f"approval {req.approval_id}") for tool_id in req.tools]
    state.tool_calls = calls
    for call in calls:
        tool_result_event(deps, state, call, req.approval_id)
    expected = session.version
    _apply(state, agent, req, session, calls)
    state.confidence, state.confidence_factors = req.confidence, dict(req.confidence_factors)
    state.approval = {**req.summary(now), "state": "approved"}
    state.request_id = req.approval_id

    # The follow-up answer is drafted and checked by the ordinary generate and enforce stages.
    event: dict[str, Any] = state.model_dump(mode="json")
    stage: str | None = "generate"
    while stage is not None and stage != "persist":
        event = run_stage(stage, event, deps)
        stage = next_stage(stage, (event.get("control") or {}).get("next"))
    state = TurnState.model_validate(event)
    response = state.response or ""

    outcome = {"ran": [{"tool_id": c.tool_id, "status": c.status} for c in calls], "turn_id": turn_id}
    for _ in range(MAX_SAVE_TRIES):
        assert state.session is not None
        s = state.session
        s.turn_count += 1
        s.remember("assistant", response)
        s.expires_at = int(deps.clock() + deps.session_ttl_s)
        try:
            state.session = deps.sessions.save(s, expected_version=expected)
            break
        except VersionConflict:
            # A turn landed meanwhile: put the tools' outputs on the latest session (they ran once already).
            fresh = deps.sessions.get(req.tenant_id, req.agent_id, req.session_id)
            if fresh is None:
                break
            expected = fresh.version
            _apply(state, agent, req, fresh, calls)
    state.result = state.to_result()
    deps.turns.put(turn_record(state, deps, state.session.turn_count if state.session else 0))
    deps.approvals.set_outcome(req.tenant_id, req.approval_id, outcome)  # type: ignore[union-attr]
    ok = all(c.status == "ok" for c in calls)
    ran = ", ".join(f"{c.tool_id} {c.status}" for c in calls)
    return ApprovalAnswer(ok, req.approval_id, "approved", f"Approval request {req.approval_id} approved; ran {ran}.",
                          state.approval, response, [c.model_dump() for c in calls], turn_id)
