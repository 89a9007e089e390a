"""Failed identity checks, counted on the session so that guessing ends.

An identity check is any tool whose output fills a privileged boolean field (`identity_verified`,
`customer_verified`: set only by tools, never by what the customer says). A run of it that does not set every such
field to true is a failed check. The count lives on the session, not on the flow run: starting the flow over,
switching flows, cancelling or undoing keeps it, so a guesser cannot reset it. After `LIMIT` failures no identity check
runs again in this session and the customer is handed to a person. A count that cannot be read (`UNREADABLE`) is
taken as exhausted.
"""

from __future__ import annotations

from typing import Any

from focal.dialogue.flow import end_flow
from focal.models.agent import AgentConfig, Tool
from focal.models.session import UNREADABLE, Session
from focal.models.turn import TurnState

LIMIT = 3  # the design names no number for identity attempts: three, as the brief's default
EXHAUSTED = "identity checks exhausted for this session: not run"
HANDOFF_REASON = (f"The identity check failed {LIMIT} times in this session: no further check is run; verify the "
                  "customer another way.")


def verdict_fields(agent: AgentConfig, tool: Tool) -> list[str]:
    """The privileged boolean fields the tool's output fills: what makes it an identity check."""
    return [name for name in tool.output.values()
            if (f := agent.field(name)) is not None and f.privileged and f.field_type == "boolean"]


def is_check(agent: AgentConfig, tool: Tool | None) -> bool:
    return tool is not None and bool(verdict_fields(agent, tool))


def exhausted(session: Session | None) -> bool:
    """No identity check may run: `LIMIT` failures in this session, or a count that cannot be read."""
    if session is None:
        return True
    count = session.failed_identity_checks
    return type(count) is not int or count < 0 or count >= LIMIT


def count_result(agent: AgentConfig, tool: Tool, session: Session, values: dict[str, Any]) -> None:
    """A check ran: one more failure unless every verdict field it fills came back true."""
    fields = verdict_fields(agent, tool)
    if not fields or all(values.get(name) is True for name in fields):
        return
    count = session.failed_identity_checks
    session.failed_identity_checks = count + 1 if type(count) is int and count >= 0 else UNREADABLE


def merged(stored: int, turn: int) -> int:
    """The count to keep when another turn saved the session meanwhile: the higher, unreadable winning."""
    return UNREADABLE if UNREADABLE in (stored, turn) else max(stored, turn)


def hand_over_when_spent(state: TurnState, agent: AgentConfig) -> bool:
    """An identity check failed for the last time this turn, or was refused because the checks are spent: the flow
    ends and a person takes over (the tools stage runs the agent's hand-off, the customer hears the engine's
    hand-off notice). Nothing the customer says next verifies them in this session. True when it hands over now."""
    session, d = state.session, state.route.decision
    checked = [c for c in state.tools.tool_calls if c.status in ("ok", "skipped") and is_check(agent, agent.tool(c.tool_id))]
    if not checked or state.error is not None or not exhausted(session) or d.escalation_reason == HANDOFF_REASON:
        return False
    d.action, d.escalation_reason = "escalate", HANDOFF_REASON
    d.notes.append(f"{', '.join(dict.fromkeys(c.tool_id for c in checked))}: identity checks spent "
                   f"({LIMIT} failures in this session): handed to a person")
    if session is not None:  # no session (unreadable) still hands over; there is just no flow to end
        end_flow(session)
        session.flow_stack.clear()
        session.offer = None
    return True
