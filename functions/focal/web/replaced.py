"""What the customer did not get, read from one turn's result: the drafts enforcement replaced and the actions a
guard stopped, each with the rules that did it and why. The playground marks the answer with these
(`turn_trace` → `replaced`, `blocked_actions`); they come from the stored (masked) record only.

A turn's answer was replaced when any draft of it broke a rule or an output check (`enforcement.violations`):
what the customer read is then a regenerated draft, the agent's own words, or a fallback text, never the draft
that was blocked. An action was blocked when a guard stopped a tool call before it ran (`status: blocked`).
"""

from __future__ import annotations

from typing import Any

from focal.models.turn import TurnResult

UNNAMED_GUARD = "(no guard named)"  # a blocked call whose verdicts name no failing guard: still shown as blocked


def _how(enforcement: dict[str, Any]) -> str:
    if enforcement.get("fallback_used"):
        return "fallback"
    if enforcement.get("own_words"):
        return "own_words"
    return "regenerated"


HOW_SAID = {"fallback": "the customer got a fallback text", "own_words": "the customer got the agent's own words",
            "regenerated": "the customer got a regenerated answer"}


def replacement(result: TurnResult) -> dict[str, Any] | None:
    """None when the customer read the first draft; else the rules (or output checks) that blocked drafts, with
    their lanes and reasons, and how the answer was replaced."""
    enforcement = result.enforcement or {}
    violations = enforcement.get("violations") or []
    if not violations and not enforcement.get("fallback_used"):
        return None
    rules: dict[str, dict[str, Any]] = {}
    for v in violations:
        entry = rules.setdefault(str(v.get("rule_id")), {"rule_id": str(v.get("rule_id")), "lanes": [], "reasons": []})
        for key, value in (("lanes", v.get("lane")), ("reasons", v.get("reason"))):
            if value and value not in entry[key]:
                entry[key].append(value)
    how = _how(enforcement)
    return {"rule_ids": list(rules), "rules": list(rules.values()), "how": how, "said": HOW_SAID[how],
            "regenerations": enforcement.get("regenerations", 0), "not_regenerated": enforcement.get("not_regenerated")}


def blocked_actions(result: TurnResult) -> list[dict[str, Any]]:
    """Each tool call a guard stopped before it ran: the tool, the guards that failed and their reasons."""
    out = []
    for call in result.tool_calls:
        if call.get("status") != "blocked":
            continue
        failed = [g for g in call.get("guards") or [] if not g.get("passed", False)]
        rule_ids = list(dict.fromkeys(str(g.get("rule_id")) for g in failed)) or [UNNAMED_GUARD]
        reasons = [f"{g.get('rule_id')}: {g.get('reason') or 'failed'}" for g in failed] or [call.get("error") or "blocked"]
        out.append({"tool_id": call.get("tool_id"), "rule_ids": rule_ids, "reasons": reasons, "trigger": call.get("trigger", "")})
    return out
