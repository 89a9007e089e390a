"""Answering an approval request: deny records it; approve resumes the turn pipeline from the tools stage.

Approving moves the request awaiting → approved with a conditional write first (the only way to the
action, so it runs at most once). The resumed turn carries the request's exact calls (`ApprovalResume`)
and walks the ordinary stage list from `RESUME_STAGE` — tools (the guards checked again on the stored
arguments, then exactly those calls), generate, enforce, persist (which reconciles the session if a
turn landed meanwhile) — so a resumed action passes every check a live one does.

AWS seam: `answer` is the whole domain operation; the approval route's Lambda parses `{tenant,
approval_id, decision}` and calls it, and `focal.pipeline.approval_workflow` hands the decision to a
waiting STANDARD workflow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from focal.dialogue.approvals import publish, step_key
from focal.dialogue.tool_calls import arguments_for
from focal.errors import VersionConflict
from focal.models.approval import ApprovalRequest, ApprovalState, EventType
from focal.models.context import Context
from focal.models.session import CustomerProfile, Session
from focal.models.turn import ApprovalResume, SensorOutput, TurnRequest, TurnState
from focal.pipeline.runner import run_pipeline
from focal.turn.definition import RESUME_STAGE
from focal.turn.deps import Deps

MAX_SAVE_TRIES = 3

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
                or (req.step is not None and step_key(session) != req.step)
                or not _same_arguments(deps, req, session))
    if approve and moved_on:
        _expire(deps, req, now, "superseded: the conversation moved on")
        req.state = "expired"
        return ApprovalAnswer(False, approval_id, "expired",
                              f"Approval request {approval_id} no longer applies: the conversation has moved on since "
                              "it was made. Nothing was run.", req.summary(now))

    target: ApprovalState = "approved" if approve else "denied"
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


def _profile(deps: Deps, req: ApprovalRequest, session: Session) -> CustomerProfile:
    return deps.profiles.get(req.tenant_id, req.agent_id, session.customer_id) or CustomerProfile(
        tenant_id=req.tenant_id, agent_id=req.agent_id, customer_id=session.customer_id)


def _same_arguments(deps: Deps, req: ApprovalRequest, session: Session) -> bool:
    """The conversation still asks for exactly the stored calls: a correction since the request ("sorry, I
    meant the other one") that came back to the same step leaves other arguments, and the stored ones no longer apply."""
    agent = deps.configs.get_agent(req.tenant_id, req.agent_id)
    probe = TurnState(request=TurnRequest(tenant_id=req.tenant_id, agent_id=req.agent_id, session_id=req.session_id,
                                          customer_id=session.customer_id, turn_id=f"{req.approval_id}-check", message=""),
                      session=session, profile=_profile(deps, req, session))
    now: dict[str, Any] = {}
    for tool_id in req.tools:
        now.update(arguments_for(agent, probe, tool_id))
    return now == req.arguments


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


def _run_approved(deps: Deps, req: ApprovalRequest, session: Session, now: float) -> ApprovalAnswer:
    profile = _profile(deps, req, session)
    turn_id = f"{req.approval_id}-run"
    request = TurnRequest(tenant_id=req.tenant_id, agent_id=req.agent_id, session_id=req.session_id,
                          customer_id=session.customer_id, turn_id=turn_id, message="")
    resume = ApprovalResume(approval_id=req.approval_id, tools=list(req.tools), arguments=dict(req.arguments),
                            step=req.step, customer_confirmed=req.customer_confirmed,
                            trigger=f"approval {req.approval_id}")
    state = TurnState(
        request=request,
        resume=resume,
        session=session,
        profile=profile,
        sensor=SensorOutput(context=Context(message="", notes=[f"approval {req.approval_id} approved"])),
    )
    state.route.decision.scenario_id, state.route.decision.step_id = session.active_scenario_id, session.active_step_id
    state.route.decision.started_scenario_id, state.route.decision.started_step_id = session.active_scenario_id, session.active_step_id
    state.route.decision.notes.append(f"approved action {', '.join(req.tools)} (request {req.approval_id})")
    state.confidence, state.tools.confidence_factors = req.confidence, dict(req.confidence_factors)
    state.tools.approval = {**req.summary(now), "state": "approved"}
    state.tools.request_id = req.approval_id

    result = run_pipeline(state.model_dump(mode="json"), deps, RESUME_STAGE)
    calls = result.tool_calls
    outcome = {"ran": [{"tool_id": c["tool_id"], "status": c["status"]} for c in calls], "turn_id": turn_id}
    deps.approvals.set_outcome(req.tenant_id, req.approval_id, outcome)  # type: ignore[union-attr]
    ok = bool(calls) and all(c["status"] == "ok" for c in calls) and result.error is None
    ran = ", ".join(f"{c['tool_id']} {c['status']}" for c in calls) or "nothing"
    return ApprovalAnswer(ok, req.approval_id, "approved", f"Approval request {req.approval_id} approved; ran {ran}.",
                          state.tools.approval, result.response, list(calls), turn_id)
