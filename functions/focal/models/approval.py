"""Approval requests and the engine events published about them.

An approval request holds a side-effecting action the gate would not run on its own: the tools,
the arguments they would get, the step they belong to, and a deadline. It moves once, from
`awaiting_approval` to `approved`, `denied` or `expired`; the store makes that move conditional, so
two answers racing each other cannot both win.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from focal.models.ids import IdStr

ApprovalState = Literal["awaiting_approval", "approved", "denied", "expired"]
EventType = Literal[
    "approval_requested", "clarification_requested", "execution_decision", "tool_result",
    "approval_decided", "approval_expired", "action_blocked",
]


class ApprovalRequest(BaseModel):
    approval_id: IdStr
    tenant_id: str
    agent_id: str
    session_id: str
    customer_id: str
    turn_id: str = Field(description="the turn that asked for the approval")
    tool_id: str = Field(description="the side-effecting tool that needs the approval")
    tools: list[str] = Field(default_factory=list, description="every tool the approved action runs, in order")
    step: str | None = Field(default=None, description="'scenario_id.step_id' of a step action; None for a rule's tool")
    trigger: str = ""
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="the exact arguments of the action (approving runs exactly these)")
    guard_verdicts: list[dict[str, Any]] = Field(
        default_factory=list, description="the action guards evaluated on those arguments when the request was made")
    customer_confirmed: bool = Field(default=False, description="the customer had said yes to the action's confirmation")
    confidence: float = 0.0
    confidence_factors: dict[str, float] = Field(default_factory=dict)
    created_at: float
    expires_at: float = Field(description="the deadline for an answer (created_at + approval.timeout_seconds)")
    state: ApprovalState = "awaiting_approval"
    decided_at: float | None = None
    outcome: dict[str, Any] | None = Field(
        default=None, description="what happened when decided: tool statuses, the follow-up turn id, or why nothing ran"
    )

    def effective_state(self, now: float) -> ApprovalState:
        """An awaiting request past its deadline reads as expired, even before anyone marked it."""
        if self.state == "awaiting_approval" and now > self.expires_at:
            return "expired"
        return self.state

    def summary(self, now: float | None = None) -> dict[str, Any]:
        """The `approval` object of a turn result / API answer (no arguments: they may hold personal data)."""
        return {
            "id": self.approval_id,
            "state": self.effective_state(now) if now is not None else self.state,
            "tool_id": self.tool_id,
            "expires_at": self.expires_at,
        }


class EngineEvent(BaseModel):
    """One event for the chat channel / host system. Ids and figures only, never customer text."""

    type: EventType
    at: float
    tenant_id: str
    agent_id: str
    session_id: str
    turn_id: str | None = None
    request_id: str | None = Field(default=None, description="the approval or clarification request id")
    data: dict[str, Any] = Field(default_factory=dict)
