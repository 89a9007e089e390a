"""The compact, human-readable trace printed under each answer."""

from __future__ import annotations

from focal.models.turn import TurnResult


def format_trace(result: TurnResult) -> str:
    intent = result.intent.get("label") or "none"
    scenario = f"{result.scenario['id']}/{result.scenario['step_id']}" if result.scenario else "none"
    enf = result.enforcement
    lines = [
        f"  path {result.execution_path} · intent {intent} ({result.intent.get('confidence', 0):.2f}) · scenario {scenario}"
        f" · confidence {result.confidence:.2f}",
        f"  rules: {', '.join(result.matched_rules) or 'none'}",
    ]
    if result.commands:
        lines.insert(1, "  commands: " + ", ".join(c["name"] for c in result.commands)
                     + (" · fast path" if result.intent.get("fast_path") else ""))
    verdict = f"  enforcement: checked {len(enf['checked'])}"
    if enf["violations"]:
        verdict += " · BLOCKED " + "; ".join(f"{v['rule_id']} ({v['lane']}: {v['reason']})" for v in enf["violations"])
    if enf.get("unverified"):
        verdict += " · UNVERIFIED " + ", ".join(enf["unverified"]) + " (no judge could check them)"
    if not enf["violations"] and not enf.get("unverified"):
        verdict += " · passed"
    if enf["regenerations"]:
        verdict += f" · regenerations {enf['regenerations']}"
    if enf["fallback_used"]:
        verdict += " · fallback used"
    lines.append(verdict)
    if result.tool_calls:
        lines.append("  tools: " + ", ".join(f"{t['tool_id']} {t['status']}" for t in result.tool_calls))
    for call in (t for t in result.tool_calls if t["status"] == "blocked"):
        lines.append(f"  ACTION BLOCKED {call['tool_id']}: {call['error']}")
    if result.suggested_questions:
        lines.append("  suggestions: " + " | ".join(result.suggested_questions))
    if result.error:
        lines.append(f"  error: {result.error['code']}")
    timings = " ".join(f"{k} {v:.1f}" for k, v in result.timings_ms.items())
    lines.append(f"  ms: {timings} · total {sum(result.timings_ms.values()):.1f} · model calls {result.model_calls}")
    return "\n".join(lines)
