"""What is wrong with one expectation of a conversation-test suite (focal.cli.suite_file): one check per
expectation key (`EXPECT_CHECKS`), each answering its problems as messages of their own — a value of the
wrong kind, or a name the agent does not declare (with the closest one it does)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, get_args

from focal.cli.tool_expect import tool_calls_problems
from focal.config.hints import meant
from focal.models.agent import AgentConfig
from focal.models.context import CommandName
from focal.models.turn import OUTPUT_CHECKS, ApprovalStateName, ExecutionPath

ExpectCheck = Callable[[AgentConfig, str, Any], list[str]]


def is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# --- the shapes an expectation takes ----------------------------------------------------------------


def _one_of(key: str, value: Any, values: tuple[str, ...]) -> list[str]:
    return [] if value in values else [f"expectation {key!r} must be one of {list(values)}, got {value!r}"]


def _named(key: str, value: Any, known: set[str], kind: str) -> list[str]:
    """Null, or one id the agent declares."""
    if value is None:
        return []
    if not isinstance(value, str):
        return [f"expectation {key!r} must be null or a {kind} id, got {value!r}"]
    return [] if value in known else [f"unknown {kind} {value!r} in {key!r}{meant(value, known, 'the agent has')}"]


def _ids(key: str, value: Any, known: Collection[str], kind: str) -> list[str]:
    """A list of ids the agent declares, each unknown one a problem of its own."""
    if not is_str_list(value):
        return [f"expectation {key!r} must be a list of {kind} ids, got {value!r}"]
    return [f"unknown {kind} {v!r} in {key!r}{meant(v, known, 'the agent has')}" for v in value if v not in known]


def _kind_of(key: str, value: Any, ok: bool, what: str) -> list[str]:
    return [] if ok else [f"expectation {key!r} must be {what}, got {value!r}"]


# --- one check per key -----------------------------------------------------------------------------


def _approval_state(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return _one_of(key, value, get_args(ApprovalStateName))


def _execution_path(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return _one_of(key, value, get_args(ExecutionPath))


def _intent(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return _named(key, value, {s.intent_label or s.id for s in agent.scenarios}, "intent")


def _scenario(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return _named(key, value, {s.id for s in agent.scenarios}, "scenario")


def _step(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return _named(key, value, {st.id for s in agent.scenarios for st in s.steps}, "step")


def _rules(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return _ids(key, value, {r.id for r in agent.rules}, "rule")


def _violations(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return _ids(key, value, {r.id for r in agent.rules} | set(OUTPUT_CHECKS), "rule or output check")


def _tools(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return _ids(key, value, {t.id for t in agent.tools}, "tool")


def _commands(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return _ids(key, value, set(get_args(CommandName)), "command")


def _tool_calls(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return tool_calls_problems(agent, value)


def _suggested_questions(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return _kind_of(key, value, isinstance(value, bool) or is_str_list(value), "true, false or a list of questions")


def _count(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return _kind_of(key, value, whole(value), "a whole number ≥ 0")


def _flag(agent: AgentConfig, key: str, value: Any) -> list[str]:
    return _kind_of(key, value, isinstance(value, bool), "true or false")


def _texts(agent: AgentConfig, key: str, value: Any) -> list[str]:
    ok = (isinstance(value, str) or is_str_list(value)) and value not in ("", [])
    return _kind_of(key, value, ok, "a non-empty string or list of strings")


EXPECT_CHECKS: dict[str, ExpectCheck] = {
    "approval_state": _approval_state,
    "execution_path": _execution_path,
    "intent": _intent,
    "scenario": _scenario,
    "step": _step,
    "matched_rules": _rules,
    "matched_rules_include": _rules,
    "matched_rules_exclude": _rules,
    "unverified": _rules,
    "violations": _violations,
    "blocked_tools": _tools,
    "commands": _commands,
    "tool_calls": _tool_calls,
    "suggested_questions": _suggested_questions,
    "model_calls": _count,
    "regenerations": _count,
    "fast_path": _flag,
    "fallback_used": _flag,
    "response_contains": _texts,
    "response_not_contains": _texts,
}


def expect_problems(agent: AgentConfig, key: str, value: Any) -> list[str]:
    """What is wrong with one expectation (a known key), each a message of its own."""
    return EXPECT_CHECKS[key](agent, key, value)
