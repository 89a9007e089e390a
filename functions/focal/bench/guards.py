"""Guard cases of `focal bench enforcement`: tool calls with their arguments and context, and the verdict
the action guards must give (blocked / allowed), evaluated with focal.enforcement.guards.

Format (under `guard_cases:` of the labelled set)::

    guard_cases:
      - id: credit-75-standard
        tool: issue_credit
        arguments: {booking_id: B-123}        # the call's exact arguments
        variables: {booking_total: 75.0}      # session variables and slots (over the fields' defaults)
        profile: {is_premium: false}          # optional
        scope: {scenario: compensation, step: confirm_credit}   # optional: the active scenario/step
        confirmed: true                       # optional (default true): the customer said yes
        expected: blocked                     # blocked | allowed
        blocked_by: [credit_guard]            # optional: the guards that must block it

Scored as the `guard` lane: a blocked call expected blocked is a TP, an allowed one expected blocked an
FN, a blocked one expected allowed an FP.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from focal.bench.enforcement_cases import as_mapping
from focal.enforcement.guards import blocked, check_call
from focal.enforcement.scope import ActiveScope
from focal.models.agent import AgentConfig

KEYS = {"id", "tool", "arguments", "variables", "profile", "scope", "confirmed", "expected", "blocked_by", "note"}


@dataclass(frozen=True)
class GuardCase:
    id: str
    tool: str
    expected_blocked: bool
    arguments: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, Any] = field(default_factory=dict)
    profile: dict[str, Any] = field(default_factory=dict)
    scenario: str | None = None
    step: str | None = None
    confirmed: bool = True
    blocked_by: tuple[str, ...] = ()


@dataclass
class GuardOutcome:
    case: GuardCase
    blocked_by: list[str]
    reasons: list[str]
    ms: float

    @property
    def correct(self) -> bool:
        if bool(self.blocked_by) != self.case.expected_blocked:
            return False
        return set(self.case.blocked_by) <= set(self.blocked_by)




def load_guard_cases(path: str | Path) -> list[GuardCase]:
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    raw = data.get("guard_cases") if isinstance(data, dict) else None
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ValueError(f"{path}: guard_cases must be a list")
    out, seen = [], set()
    for i, item in enumerate(raw):
        where = f"{path}: guard_cases[{i}]"
        if not isinstance(item, dict) or set(item) - KEYS:
            raise ValueError(f"{where} must be a mapping with keys among {sorted(KEYS)}")
        if not isinstance(item.get("id"), str) or item["id"] in seen:
            raise ValueError(f"{where}.id must be a unique string")
        seen.add(item["id"])
        if item.get("expected") not in ("blocked", "allowed") or not isinstance(item.get("tool"), str):
            raise ValueError(f"{where}: tool (a tool id) and expected (blocked | allowed) are required")
        scope = as_mapping(item.get("scope"), f"{where}.scope")
        out.append(GuardCase(
            id=item["id"], tool=item["tool"], expected_blocked=item["expected"] == "blocked",
            arguments=as_mapping(item.get("arguments"), f"{where}.arguments"),
            variables=as_mapping(item.get("variables"), f"{where}.variables"),
            profile=as_mapping(item.get("profile"), f"{where}.profile"),
            scenario=scope.get("scenario"), step=scope.get("step"), confirmed=bool(item.get("confirmed", True)),
            blocked_by=tuple(item.get("blocked_by") or ()),
        ))
    return out


def guard_problems(agent: AgentConfig, cases: list[GuardCase]) -> list[str]:
    problems = []
    fields = {f.field_name for f in agent.profile_field_definitions}
    for case in cases:
        tool = agent.tool(case.tool)
        if tool is None:
            problems.append(f"guard case {case.id}: tool {case.tool!r} does not exist")
        else:
            problems += [f"guard case {case.id}: {case.tool} has no input {k!r}" for k in case.arguments if k not in tool.input]
        problems += [f"guard case {case.id}: {n!r} is not a declared field" for n in [*case.variables, *case.profile]
                     if n not in fields]
        problems += [f"guard case {case.id}: {r!r} is not a guard of {case.tool}" for r in case.blocked_by
                     if (rule := agent.rule(r)) is None or case.tool not in rule.guarded_tool_ids]
    return problems


def run_guard_cases(agent: AgentConfig, cases: list[GuardCase]) -> list[GuardOutcome]:
    out = []
    for case in cases:
        variables = {f.field_name: f.default for f in agent.profile_field_definitions if f.default is not None}
        variables.update(case.profile)
        variables.update(case.variables)
        scope = ActiveScope()
        scope.add(case.scenario, case.step)
        started = time.perf_counter()
        verdicts = check_call(agent, case.tool, case.arguments, variables, scope, case.confirmed)
        stopped = blocked(verdicts)
        ms = (time.perf_counter() - started) * 1000
        out.append(GuardOutcome(case, [v.rule_id for v in stopped], [v.reason for v in stopped], ms))
    return out


def format_guards(outcomes: list[GuardOutcome], show: bool = False) -> list[str]:
    if not outcomes:
        return ["guard                      no guard cases in the set"]
    tp = sum(bool(o.blocked_by) and o.case.expected_blocked for o in outcomes)
    fp = sum(bool(o.blocked_by) and not o.case.expected_blocked for o in outcomes)
    fn = sum(not o.blocked_by and o.case.expected_blocked for o in outcomes)
    prec = f"{tp / (tp + fp):.3f}" if tp + fp else "   —"
    rec = f"{tp / (tp + fn):.3f}" if tp + fn else "   —"
    ms = [o.ms for o in outcomes]
    allowed = [o for o in outcomes if not o.case.expected_blocked]
    lines = [
        (f"{'guard':<26}{tp:>5}{fp:>5}{fn:>5}  {prec:>6} {rec:>6}  {'':>13}  "
         f"{np.percentile(ms, 50):7.3f} {np.percentile(ms, 95):7.3f}  ({len(outcomes)} tool calls, focal.enforcement.guards)"),
        (f"guard calls: blocked as expected {tp}/{tp + fn}; allowed calls blocked {fp}/{len(allowed)}; "
         f"exact verdict (incl. which guard) {sum(o.correct for o in outcomes)}/{len(outcomes)}"),
    ]
    if show:
        lines += [f"  wrong guard case {o.case.id}: expected {'blocked' if o.case.expected_blocked else 'allowed'}, "
                  f"blocked by {o.blocked_by or '-'}" for o in outcomes if not o.correct]
    return lines
