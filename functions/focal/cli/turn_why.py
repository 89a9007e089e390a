"""Why a conversation-test turn ended as it did: each draft with its source and verdicts, and each
action guard that stopped a call — what `focal test` prints under a failing (or, with -v, any) turn."""

from __future__ import annotations

from typing import Any

from focal.models.turn import TurnResult

SHOWN = 90


def _short(text: str) -> str:
    one_line = " ".join(text.split())
    return repr(one_line if len(one_line) <= SHOWN else one_line[:SHOWN] + "…")


def _verdicts(violations: list[dict[str, Any]]) -> str:
    if not violations:
        return "passed"
    return "blocked: " + "; ".join(f"{v.get('rule_id')} ({v.get('lane')}: {v.get('reason')})" for v in violations)


def turn_why(deps: Any, tenant_id: str, agent_id: str, session_id: str, turn_id: str, result: TurnResult) -> list[str]:
    """Lines from the turn's own record (the drafts are kept there, not in the result)."""
    records = [r for r in deps.turns.list_for_session(tenant_id, agent_id, session_id) if r.turn_id == turn_id]
    lines = []
    if records:
        for n, draft in enumerate((records[0].state.get("generate") or {}).get("drafts") or [], start=1):
            lines.append(f"draft {n} [{draft.get('source')}] {_short(draft.get('text') or '')} → "
                         f"{_verdicts(draft.get('violations') or [])}")
    for call in result.tool_calls:
        for guard in call.get("guards") or []:
            if not guard.get("passed"):
                lines.append(f"tool {call.get('tool_id')} stopped by {guard.get('rule_id')}: {guard.get('reason')}")
    unverified = result.enforcement.get("unverified") or []
    if unverified:
        lines.append(f"unverified (no judge could read them): {', '.join(unverified)}")
    return lines
