"""The approval workflow's three steps (AWS: one Lambda each), around `approvals.answer`.

    gate (tools stage)   → the request is stored and `ApprovalWorkflow.start`ed
    hold                 → the STANDARD execution's task token is kept on the request
    decide (the API)     → `answer` decides and, approving, runs the action (exactly once: its
                           conditional transition); only the call that decided resumes the workflow
    on_timeout           → no answer within the timeout: the request is marked expired, once

One owner of the tool run: the approval endpoint, through `answer`. The workflow waits, reports a
timeout as it happens, and ends with the decision; it never runs a tool.
"""

from __future__ import annotations

from typing import Any

from focal.dialogue.approvals import publish
from focal.pipeline.approval_answer import ApprovalAnswer, answer
from focal.turn.deps import Deps


def taken(result: ApprovalAnswer) -> bool:
    """Whether this answer made the decision (not a refusal: unknown, expired, already decided)."""
    return (result.state == "denied" and result.ok) or (result.state == "approved" and result.turn_id is not None)


def decide(deps: Deps, tenant_id: str, approval_id: str, approve: bool) -> tuple[ApprovalAnswer, bool]:
    """Answer the request; when this call decided it, hand the decision to the waiting workflow."""
    result = answer(deps, tenant_id, approval_id, approve)
    decided = taken(result)
    if decided and deps.approval_workflow is not None:
        deps.approval_workflow.resume(tenant_id, approval_id, {
            "decision": result.state, "turn_id": result.turn_id,
            "ran": [{"tool_id": c["tool_id"], "status": c["status"]} for c in result.tool_calls],
        })
    return result, decided


def hold(deps: Deps, tenant_id: str, approval_id: str, task_token: str) -> dict[str, Any]:
    """Keep the workflow's task token on the request (nothing to keep once it is decided)."""
    held = deps.approval_workflow is not None and deps.approval_workflow.hold(tenant_id, approval_id, task_token)
    return {"approval_id": approval_id, "held": bool(held)}


def on_timeout(deps: Deps, tenant_id: str, approval_id: str) -> dict[str, Any]:
    """The workflow waited its full time: an awaiting request becomes expired (the event is published once)."""
    if deps.approvals is None:
        return {"approval_id": approval_id, "state": "unknown", "expired_now": False}
    now = deps.clock()
    req = deps.approvals.get(tenant_id, approval_id, now)
    if req is None:
        return {"approval_id": approval_id, "state": "unknown", "expired_now": False}
    expired = None
    if req.state in ("awaiting_approval", "expired"):
        expired = deps.approvals.transition(tenant_id, approval_id, "awaiting_approval", "expired", now,
                                            {"ran": [], "reason": "expired"})
        if expired is not None:
            publish(deps, "approval_expired", req.tenant_id, req.agent_id, req.session_id, None, approval_id,
                    reason="expired", source="workflow timeout")
    return {"approval_id": approval_id, "state": "expired" if expired is not None else req.state,
            "expired_now": expired is not None}
