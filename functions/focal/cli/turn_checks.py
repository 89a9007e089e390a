"""A conversation test's expectations checked against a turn's result: one check per expectation key
(`CHECKS`, in the order the report prints their failures), each answering 'expected X, got Y' lines.
The keys are described in focal.cli.conversation_tests; `tool_calls` is focal.cli.tool_expect."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from focal.cli.suite_report import shown
from focal.cli.tool_expect import tool_calls_failures
from focal.models.turn import TurnResult

Check = Callable[[Any, TurnResult], list[str]]


def _quote(value: Any) -> str:
    return repr(value) if not isinstance(value, list) else "[" + ", ".join(repr(v) for v in value) + "]"


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _same(label: str, wanted: Any, got: Any, show: Callable[[Any], str] = repr) -> list[str]:
    return [] if got == wanted else [f"expected {label} {show(wanted)}, got {show(got)}"]


def _execution_path(wanted: Any, result: TurnResult) -> list[str]:
    return _same("execution_path", wanted, result.execution_path)


def _approval_state(wanted: Any, result: TurnResult) -> list[str]:
    return _same("approval_state", wanted, result.approval_state)


def _intent(wanted: Any, result: TurnResult) -> list[str]:
    return _same("intent", wanted, result.intent.get("label"))


def _scenario(wanted: Any, result: TurnResult) -> list[str]:
    return _same("scenario", wanted, (result.scenario or {}).get("id"))


def _step(wanted: Any, result: TurnResult) -> list[str]:
    return _same("step", wanted, (result.scenario or {}).get("step_id"))


def _matched_rules(wanted: Any, result: TurnResult) -> list[str]:
    if sorted(result.matched_rules) == sorted(wanted):
        return []
    return [f"expected matched rules {_quote(wanted)}, got {_quote(result.matched_rules)}"]


def _matched_rules_include(wanted: Any, result: TurnResult) -> list[str]:
    missing = [r for r in wanted if r not in result.matched_rules]
    return [f"expected matched rules to include {_quote(missing)}, got {_quote(result.matched_rules)}"] if missing else []


def _matched_rules_exclude(wanted: Any, result: TurnResult) -> list[str]:
    present = [r for r in wanted if r in result.matched_rules]
    return [f"expected matched rules to exclude {_quote(present)}, got {_quote(result.matched_rules)}"] if present else []


def _violations(wanted: Any, result: TurnResult) -> list[str]:
    """`[]`: no violation at all; else each listed id among the violations (others may be there too)."""
    violated = list(dict.fromkeys(v["rule_id"] for v in result.enforcement.get("violations", [])))
    failures = [f"expected no violations, got {_quote(violated)}"] if not wanted and violated else []
    missing = [r for r in wanted if r not in violated]
    if missing:
        failures.append(f"expected violations to include {_quote(missing)}, got {_quote(violated) if violated else 'none'}")
    return failures


def _fallback_used(wanted: Any, result: TurnResult) -> list[str]:
    return _same("fallback_used", wanted, bool(result.enforcement.get("fallback_used")), str)


def _regenerations(wanted: Any, result: TurnResult) -> list[str]:
    return _same("regenerations", wanted, result.enforcement.get("regenerations", 0), str)


def _response_contains(wanted: Any, result: TurnResult) -> list[str]:
    response = result.response.lower()
    return [f"expected the response to contain {text!r}, got {shown(result.response)}"
            for text in _as_list(wanted) if text.lower() not in response]


def _response_not_contains(wanted: Any, result: TurnResult) -> list[str]:
    response = result.response.lower()
    return [f"expected the response not to contain {text!r}, got {shown(result.response)}"
            for text in _as_list(wanted) if text.lower() in response]


def _suggested_questions(wanted: Any, result: TurnResult) -> list[str]:
    """true: some; false: none; a list: each of them among the suggestions (case-insensitive)."""
    got = result.suggested_questions
    if wanted is True:
        return [] if got else ["expected suggested questions, got none"]
    if wanted is False:
        return [f"expected no suggested questions, got {_quote(got)}"] if got else []
    offered = {g.lower() for g in got}
    missing = [q for q in wanted if q.lower() not in offered]
    return [f"expected suggested questions to include {_quote(missing)}, got {_quote(got)}"] if missing else []


def _commands(wanted: Any, result: TurnResult) -> list[str]:
    got = sorted(c["name"] for c in result.commands)
    return [] if got == sorted(wanted) else [f"expected commands {_quote(sorted(wanted))}, got {_quote(got)}"]


def _unverified(wanted: Any, result: TurnResult) -> list[str]:
    return _same("unverified", sorted(wanted), sorted(result.enforcement.get("unverified", [])), _quote)


def _model_calls(wanted: Any, result: TurnResult) -> list[str]:
    return [] if result.model_calls == wanted else [f"expected {wanted} model call(s), got {result.model_calls}"]


def _fast_path(wanted: Any, result: TurnResult) -> list[str]:
    return _same("fast_path", wanted, result.intent.get("fast_path"), str)


def _tool_calls(wanted: Any, result: TurnResult) -> list[str]:
    return tool_calls_failures(wanted, result.tool_calls)


def _blocked_tools(wanted: Any, result: TurnResult) -> list[str]:
    """Exactly these tools were stopped by a guard (each counted once)."""
    blocked = sorted({t["tool_id"] for t in result.tool_calls if t.get("status") == "blocked"})
    if blocked == sorted(set(wanted)):
        return []
    return [f"expected blocked tools {_quote(sorted(wanted))}, got {_quote(blocked)}"]


CHECKS: dict[str, Check] = {
    "execution_path": _execution_path,
    "approval_state": _approval_state,
    "intent": _intent,
    "scenario": _scenario,
    "step": _step,
    "matched_rules": _matched_rules,
    "matched_rules_include": _matched_rules_include,
    "matched_rules_exclude": _matched_rules_exclude,
    "violations": _violations,
    "fallback_used": _fallback_used,
    "regenerations": _regenerations,
    "response_contains": _response_contains,
    "response_not_contains": _response_not_contains,
    "suggested_questions": _suggested_questions,
    "commands": _commands,
    "unverified": _unverified,
    "model_calls": _model_calls,
    "fast_path": _fast_path,
    "tool_calls": _tool_calls,
    "blocked_tools": _blocked_tools,
}


def check_turn(expect: dict[str, Any], result: TurnResult) -> list[str]:
    """'expected X, got Y' for every expectation the result does not meet, in the order of `CHECKS`."""
    return [failure for key, check in CHECKS.items() if key in expect for failure in check(expect[key], result)]
