"""The compact, human-readable trace printed under each answer (coloured when `colour` is true:
BLOCKED / ACTION BLOCKED in red, UNVERIFIED in yellow, the fallback and regenerations highlighted)."""

from __future__ import annotations

from focal.cli.style import paint
from focal.models.turn import TurnResult


def format_trace(result: TurnResult, colour: bool = False) -> str:
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
        verdict += " · " + paint("BLOCKED", "blocked", colour) + " " + "; ".join(dict.fromkeys(  # once per rule and reason
            f"{v['rule_id']} ({v['lane']}: {v['reason']})" for v in enf["violations"]))
    if enf.get("unverified"):
        verdict += (" · " + paint("UNVERIFIED", "unverified", colour) + " " + ", ".join(enf["unverified"])
                    + " (no judge could check them)")
    if not enf["violations"] and not enf.get("unverified"):
        verdict += " · " + paint("passed", "pass", colour)
    if enf["regenerations"]:
        verdict += " · " + paint(f"regenerations {enf['regenerations']}", "fallback", colour)
    if enf["fallback_used"]:
        verdict += " · " + paint("fallback used", "fallback", colour)
    lines.append(verdict)
    for rule_id, why in (enf.get("not_judged") or {}).items():
        lines.append(f"  not judged: {rule_id} ({why})")
    if enf.get("not_regenerated"):
        lines.append(f"  not regenerated: {enf['not_regenerated']}")
    if result.tool_calls:
        lines.append("  tools: " + ", ".join(f"{t['tool_id']} {t['status']}" for t in result.tool_calls))
    for call in (t for t in result.tool_calls if t["status"] == "blocked"):
        lines.append(f"  {paint('ACTION BLOCKED', 'blocked', colour)} {call['tool_id']}: {call['error']}")
    if result.prevalidation:
        lines.append(f"  {paint('pre-validation failed', 'blocked', colour)}: "
                     + "; ".join(f"{c['name']} ({c['reason']})" for c in result.prevalidation))
    if result.suggested_questions:
        lines.append("  suggestions: " + " | ".join(result.suggested_questions))
    if result.error:
        lines.append(f"  {paint('error', 'blocked', colour)}: {result.error['code']}")
    timings = " ".join(f"{k} {v:.1f}" for k, v in result.timings_ms.items())
    lines.append(paint(f"  ms: {timings} · total {sum(result.timings_ms.values()):.1f} · model calls {result.model_calls}",
                       "dim", colour))
    return "\n".join(lines)
