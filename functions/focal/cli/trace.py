"""The compact, human-readable trace printed under each answer (coloured when `colour` is true:
BLOCKED / ACTION BLOCKED in red, UNVERIFIED in yellow, the fallback and regenerations highlighted).

Guards are shown apart from the rules that matched the message: a guard is checked on a tool call's
arguments, so the trace says which guard ran on which call and whether it passed or blocked it; a guard
that only resembled the message (through its examples) is said to have run on nothing this turn.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from focal.cli.style import paint
from focal.models.agent import AgentConfig
from focal.models.turn import TurnResult


def guard_ids(agent: AgentConfig) -> frozenset[str]:
    """The ids of the agent's action guards (hard constraints that name the tools they guard)."""
    return frozenset(r.id for r in agent.rules if r.is_hard_constraint and r.guarded_tool_ids)


def _head(result: TurnResult) -> str:
    intent = result.intent.get("label") or "none"
    scenario = f"{result.scenario['id']}/{result.scenario['step_id']}" if result.scenario else "none"
    return (f"  path {result.execution_path} · intent {intent} ({result.intent.get('confidence', 0):.2f}) · scenario {scenario}"
            f" · confidence {result.confidence:.2f}")


def _commands(result: TurnResult) -> list[str]:
    if not result.commands:
        return []
    return ["  commands: " + ", ".join(c["name"] for c in result.commands) + (" · fast path" if result.intent.get("fast_path") else "")]


def _verdicts(result: TurnResult) -> list[tuple[str, str, bool]]:
    """(guard id, tool id, passed) of every guard evaluated before a call this turn, in order."""
    return [(g["rule_id"], call["tool_id"], bool(g["passed"])) for call in result.tool_calls for g in call.get("guards") or []]


def _rules_and_guards(result: TurnResult, guards: Collection[str], colour: bool) -> list[str]:
    ran = _verdicts(result)
    known = set(guards) | {guard for guard, _, _ in ran}
    lines = [f"  rules: {', '.join(r for r in result.matched_rules if r not in known) or 'none'}"]
    shown = [f"{guard} on {tool} " + (paint("passed", "pass", colour) if passed else paint("BLOCKED", "blocked", colour))
             for guard, tool, passed in ran]
    ran_ids = {guard for guard, _, _ in ran}
    shown += [f"{r} (matched the message; no call it guards ran)" for r in result.matched_rules if r in known and r not in ran_ids]
    return lines + ([f"  guards: {'; '.join(shown)}"] if shown else [])


def _enforcement(enf: dict[str, Any], colour: bool) -> list[str]:
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
    lines = [verdict, *(f"  not judged: {rule_id} ({why})" for rule_id, why in (enf.get("not_judged") or {}).items())]
    return lines + ([f"  not regenerated: {enf['not_regenerated']}"] if enf.get("not_regenerated") else [])


def _tools(result: TurnResult, colour: bool) -> list[str]:
    lines = ["  tools: " + ", ".join(f"{t['tool_id']} {t['status']}" for t in result.tool_calls)] if result.tool_calls else []
    return lines + [f"  {paint('ACTION BLOCKED', 'blocked', colour)} {call['tool_id']}: {call['error']}"
                    for call in result.tool_calls if call["status"] == "blocked"]


def _notices(result: TurnResult, colour: bool) -> list[str]:
    lines = []
    if result.prevalidation:
        lines.append(f"  {paint('pre-validation failed', 'blocked', colour)}: "
                     + "; ".join(f"{c['name']} ({c['reason']})" for c in result.prevalidation))
    if result.suggested_questions:
        lines.append("  suggestions: " + " | ".join(result.suggested_questions))
    if result.error:
        lines.append(f"  {paint('error', 'blocked', colour)}: {result.error['code']}")
    return lines


def format_trace(result: TurnResult, colour: bool = False, guards: Collection[str] = ()) -> str:
    """The trace of one turn; `guards`: the agent's guard ids (`guard_ids`), shown apart from the matched rules
    (a guard that ran on a call is recognised without them)."""
    timings = " ".join(f"{k} {v:.1f}" for k, v in result.timings_ms.items())
    lines = [_head(result), *_commands(result), *_rules_and_guards(result, guards, colour),
             *_enforcement(result.enforcement, colour), *_tools(result, colour), *_notices(result, colour),
             paint(f"  ms: {timings} · total {sum(result.timings_ms.values()):.1f} · model calls {result.model_calls}", "dim", colour)]
    return "\n".join(lines)
