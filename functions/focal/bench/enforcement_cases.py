"""The labelled sets of `focal bench enforcement`: loading, and checking a set against its agent.

A set file (format in focal.bench.enforcement) holds `cases` (context, draft, expected verdict) and,
in the main set, optionally `sets:` (further labelled sets beside it, reported on their own, e.g. a
paraphrase set) and `guard_cases:` (tool calls and their expected guard verdict; see
focal.bench.guards).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from focal.models.agent import AgentConfig

CHECKS = ("relevance", "grounding")  # output checks: lane name == check name == violation rule_id
LANES = ("deterministic", "judge", *CHECKS)
CASE_KEYS = {"id", "category", "context", "profile", "variables", "matched_rules", "message", "draft", "violations", "hard", "note",
             "judge"}
CONTEXT_KEYS = {"scenario", "step", "profile", "variables", "tools", "matched_rules"}
TOP_KEYS = {"agent", "output_checks", "contexts", "cases", "sets", "guard_cases", "today"}


# --------------------------------------------------------------------------- the labelled set

@dataclass(frozen=True)
class Case:
    id: str
    category: str
    message: str
    draft: str
    expected: frozenset[str]
    scenario: str | None = None
    step: str | None = None
    profile: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, Any] = field(default_factory=dict)
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    matched_rules: tuple[str, ...] = ()
    hard: bool = False
    note: str = ""
    judge: dict[str, dict[str, Any]] | None = None
    today: str | None = None  # the turn's date the set's contexts assume (its `today:`), ISO; None: the machine's clock


def as_mapping(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a mapping")
    return dict(value)


def _context(raw: Any, named: dict[str, Any], where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, str):
        if raw not in named:
            raise ValueError(f"{where}.context: no context named {raw!r} under 'contexts'")
        raw = named[raw]
    ctx = as_mapping(raw, f"{where}.context")
    unknown = set(ctx) - CONTEXT_KEYS
    if unknown:
        raise ValueError(f"{where}.context: unknown key(s) {sorted(unknown)}")
    return ctx


def output_checks(path: str | Path) -> tuple[str, ...]:
    """The output checks a set is labelled for (`output_checks:`, default all); the others stay off."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    chosen = data.get("output_checks", list(CHECKS)) if isinstance(data, dict) else list(CHECKS)
    if not isinstance(chosen, list) or not set(chosen) <= set(CHECKS):
        raise ValueError(f"{path}: output_checks must be a list among {list(CHECKS)}")
    return tuple(chosen)


def load_cases(path: str | Path) -> list[Case]:
    """Parse a labelled set; raise ValueError naming the case and key of a malformed one."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise ValueError(f"{path}: expected a mapping with a list under 'cases:'")
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {sorted(unknown)}")
    named = as_mapping(data.get("contexts"), f"{path}: contexts")
    today = _today(data.get("today"), f"{path}: today")
    cases: list[Case] = []
    seen: set[str] = set()
    for i, item in enumerate(data["cases"]):
        case_id = _case_id(item, f"{path}: cases[{i}]", seen)
        seen.add(case_id)
        cases.append(replace(_case(item, case_id, named, f"{path}: case {case_id}"), today=today))
    return cases


def _today(raw: Any, where: str) -> str | None:
    """The set's `today:` ("2026-03-10"): the date its contexts are set on ("within a few days" is read from it)."""
    if raw is None:
        return None
    try:
        return date.fromisoformat(str(raw)).isoformat()
    except ValueError:
        raise ValueError(f"{where} must be a date written YYYY-MM-DD, not {raw!r}") from None


def _case_id(item: Any, where: str, seen: set[str]) -> str:
    """The id of a case written as a mapping of known keys: a non-empty string no earlier case has."""
    if not isinstance(item, dict):
        raise ValueError(f"{where} must be a mapping")
    unknown = set(item) - CASE_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}")
    case_id = item.get("id")
    if not isinstance(case_id, str) or not case_id or case_id in seen:
        raise ValueError(f"{where}.id must be a unique non-empty string")
    return case_id


def _case(item: dict[str, Any], case_id: str, named: dict[str, Any], where: str) -> Case:
    """One case, its context (inline or named) merged under its own profile, variables and matched rules."""
    for key in ("message", "draft"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            raise ValueError(f"{where}.{key} must be a non-empty string (quote yes/no/on/off)")
    expected = item.get("violations")
    if not isinstance(expected, list) or not all(isinstance(v, str) for v in expected):
        raise ValueError(f"{where}.violations must be a list of rule ids or check names ([] for compliant)")
    ctx = _context(item.get("context"), named, where)
    judge = _judge(item.get("judge"), where)
    scenario, step = _place(ctx, where)
    matched = _matched_rules(ctx, item, where)
    tools = as_mapping(ctx.get("tools"), f"{where}.context.tools")
    for tool_id, outputs in tools.items():
        as_mapping(outputs, f"{where}.context.tools.{tool_id}")
    if not isinstance(item.get("hard", False), bool):
        raise ValueError(f"{where}.hard must be true or false")
    return Case(
        id=case_id,
        category=str(item.get("category") or "uncategorised"),
        message=item["message"],
        draft=item["draft"],
        expected=frozenset(expected),
        scenario=scenario,
        step=step,
        profile=_merged(ctx, item, "profile", where),
        variables=_merged(ctx, item, "variables", where),
        tools={k: dict(v) for k, v in tools.items()},
        matched_rules=matched,
        hard=bool(item.get("hard", False)),
        note=str(item.get("note") or ""),
        judge=judge,
    )


def _judge(raw: Any, where: str) -> dict[str, dict[str, Any]] | None:
    """Scripted judge verdicts: rule id → {compliant: true|false, reason}."""
    if raw is None:
        return None
    judge = as_mapping(raw, f"{where}.judge")
    for rule_id, verdict in judge.items():
        if not isinstance(verdict, dict) or not isinstance(verdict.get("compliant"), bool):
            raise ValueError(f"{where}.judge.{rule_id} must be a mapping with compliant: true|false")
    return judge


def _place(ctx: dict[str, Any], where: str) -> tuple[str | None, str | None]:
    """The context's scenario and step, each a string or null."""
    scenario, step = ctx.get("scenario"), ctx.get("step")
    for key, value in (("scenario", scenario), ("step", step)):
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{where}.context.{key} must be a string or null")
    return scenario, step


def _matched_rules(ctx: dict[str, Any], item: dict[str, Any], where: str) -> tuple[str, ...]:
    """The context's matched rules, then the case's own, each once."""
    matched = [*(ctx.get("matched_rules") or []), *(item.get("matched_rules") or [])]
    if not all(isinstance(r, str) for r in matched):
        raise ValueError(f"{where}: matched_rules must be lists of rule ids")
    return tuple(dict.fromkeys(matched))


def _merged(ctx: dict[str, Any], item: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    """The context's `profile` or `variables`, the case's own over them."""
    return {**as_mapping(ctx.get(key), f"{where}.context.{key}"), **as_mapping(item.get(key), f"{where}.{key}")}


def lane_of(agent: AgentConfig, check: str) -> str:
    """The lane that decides an expected id: an output check's own lane, the judge for subjective rules."""
    if check in CHECKS:
        return check
    rule = agent.rule(check)
    return "judge" if rule is not None and rule.subjective else "deterministic"


def case_problems(agent: AgentConfig, cases: Sequence[Case], checks: Sequence[str] = CHECKS) -> list[str]:
    """Labelling errors against the agent: unknown ids, fields, scenarios, tools; labels no enforcer could give."""
    problems: list[str] = []
    fields = {f.field_name for f in agent.profile_field_definitions}
    globals_ = {r.id for r in agent.global_hard_constraints()}
    for case in cases:
        where = f"case {case.id}"
        problems += [
            *_place_problems(agent, case, where),
            *(f"{where}: {name!r} is not a declared field" for name in [*case.profile, *case.variables] if name not in fields),
            *_tool_problems(agent, case, where),
            *(f"{where}: matched rule {rule_id!r} does not exist" for rule_id in case.matched_rules
              if agent.rule(rule_id) is None),
            *_expected_problems(agent, case, where, checks, globals_),
            *_judge_problems(agent, case, where),
        ]
    return problems


def _place_problems(agent: AgentConfig, case: Case, where: str) -> list[str]:
    """The case's scenario exists and its step is one of that scenario's."""
    problems = []
    scenario = agent.scenario(case.scenario) if case.scenario else None
    if case.scenario and scenario is None:
        problems.append(f"{where}: scenario {case.scenario!r} does not exist")
    if case.step and (scenario is None or not any(s.id == case.step for s in scenario.steps)):
        problems.append(f"{where}: step {case.step!r} is not a step of scenario {case.scenario!r}")
    return problems


def _tool_problems(agent: AgentConfig, case: Case, where: str) -> list[str]:
    """Each tool of the context exists and has the outputs the case gives it."""
    problems = []
    for tool_id, outputs in case.tools.items():
        tool = agent.tool(tool_id)
        if tool is None:
            problems.append(f"{where}: tool {tool_id!r} does not exist")
        else:
            problems += [f"{where}: {tool_id} has no output {k!r}" for k in outputs if k not in tool.output]
    return problems


def _expected_problems(agent: AgentConfig, case: Case, where: str, checks: Sequence[str], globals_: set[str]) -> list[str]:
    """Each expected id is a check the set is labelled for, or a hard rule enforced in the case's context (a GLOBAL
    one, or one the case matches)."""
    enforced = globals_ | {r for r in case.matched_rules if (rule := agent.rule(r)) and rule.is_hard_constraint and rule.enabled}
    problems = []
    for check in sorted(case.expected):
        if check in CHECKS:
            if check not in checks:
                problems.append(f"{where}: expects {check!r}, which this set's output_checks leave off")
        elif agent.rule(check) is None:
            problems.append(f"{where}: expected violation {check!r} is neither a rule nor a check ({', '.join(CHECKS)})")
        elif check not in enforced:
            problems.append(f"{where}: expected violation {check!r} is not enforced in this context "
                            "(not a GLOBAL hard constraint nor a matched one)")
    return problems


def _judge_problems(agent: AgentConfig, case: Case, where: str) -> list[str]:
    """Scripted judge verdicts are for subjective rules only."""
    problems = []
    for rule_id in case.judge or {}:
        rule = agent.rule(rule_id)
        if rule is None or not rule.subjective:
            problems.append(f"{where}: judge verdict for {rule_id!r}, which is not a subjective rule")
    return problems


def extra_sets(path: str | Path) -> dict[str, Path]:
    """`sets: {name: file}` of a labelled set: further sets beside it, reported on their own."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    named = data.get("sets") if isinstance(data, dict) else None
    if named is None:
        return {}
    if not isinstance(named, dict) or not all(isinstance(v, str) for v in named.values()):
        raise ValueError(f"{path}: sets must map a name to a file beside it")
    return {str(name): Path(path).parent / file for name, file in named.items()}

