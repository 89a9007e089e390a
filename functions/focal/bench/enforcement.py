"""`focal bench enforcement AGENT [--cases FILE] [--show]`: precision and recall of enforcement.

Every case of a labelled set (default: enforcement.yaml beside the agent) is a (context, draft,
expected verdict) triple. The bench builds the `TurnState` the pipeline would have built by then —
a session in the case's scenario/step with its variables and tool outputs, the customer's profile,
the message with its embedding from the real embedder, the matched rules and one model draft — and
runs the real enforce stage once on it (a copy of the agent with `max_retries: 0`, so the first
draft's verdict is the one measured, and with the relevance and grounding checks switched on — or
only those the set's `output_checks` names — whatever the agent file says, so they are measured).
The violated ids of that draft are compared with the expected ones.

Printed: per lane (deterministic, judge, relevance, grounding; guard for the guard cases) and per check (rule id or check
name): TP/FP/FN, precision and recall over all cases and over the cases not marked `hard`; the
false-block rate on drafts labelled compliant; p50/p95 milliseconds per lane, read from the stage's
`EnforcementReport.timings` (lanes 1 and 2) and `EnforcementReport.checks` (each output check's ms).
A lane that gave no verdict and no timing is reported as not run.

Judge-lane verdicts need a model. A case may script them (`judge: {rule_id: {compliant, reason}}`);
they are answered by a fake `LanguageModel` at the port. With no scripted verdicts anywhere, the
judge lane is reported as "no model" with what the agent does then (blocks, or marks unverified).

File format (YAML)::

    output_checks: [relevance, grounding]   # optional: the output checks the labels cover (default both)
    today: 2026-03-10              # optional: the turn's date the contexts assume (default: the machine's clock)
    contexts:                      # optional named contexts, shared by cases
      credit_b123:
        scenario: compensation     # or null
        step: confirm_credit
        profile: {is_premium: false}
        variables: {booking_id: B-123}                      # session variables and slots
        tools: {lookup_booking: {found: true, total: 75.0}}  # tool outputs: a tool call + mapped variables
        matched_rules: [credit_destination]
    cases:
      - id: cap-75                 # unique
        category: credit_cap
        context: credit_b123       # a name from `contexts`, or an inline mapping like the above
        profile: {is_premium: true}  # optional: merged over the context's (likewise variables, matched_rules)
        message: I want a credit for B-123
        draft: I'll credit you $75 right away.
        violations: [credit_cap]   # rule ids or check names (relevance, grounding); [] = compliant
        hard: true                 # optional: a deliberately hard case
        note: why the label is what it is
        judge: {tone: {compliant: false, reason: rude}}  # optional scripted judge verdicts

    sets: {paraphrases: enforcement_paraphrases.yaml}   # optional: further sets beside this one (same
                                   # format), each run and reported on its own after the main set
    guard_cases: [...]             # optional: tool calls and the action guards' expected verdict
                                   # (format in focal.bench.guards), reported as the lane `guard`

Each report also gives the share of violating drafts caught (every expected id reported). Only ids,
counts and figures are printed by default; `--show` also lists the wrong cases by id.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from focal.bench.enforcement_cases import (  # noqa: F401  (re-exported: the bench's public names)
    CHECKS,
    LANES,
    Case,
    case_problems,
    extra_sets,
    lane_of,
    load_cases,
    output_checks,
)
from focal.bench.enforcement_report import Outcome, format_report, score  # noqa: F401  (score: re-exported)
from focal.bench.guards import format_guards, guard_problems, load_guard_cases, run_guard_cases
from focal.enforcement.tripwires import DEFAULT_RULES
from focal.models.agent import AgentConfig, Scope
from focal.models.context import Context
from focal.models.session import CustomerProfile, Session
from focal.models.turn import Draft, GenerateOutput, RouteOutput, ScoredRule, SensorOutput, ToolCall, ToolsOutput, TurnRequest, TurnState
from focal.ports import ModelReply

TENANT = "bench"


# --------------------------------------------------------------------------- running

class _FixedAgent:
    """ConfigStore port: the benched copy of the agent, whatever the tenant."""

    def __init__(self, agent: AgentConfig):
        self.agent = agent

    def get_agent(self, tenant_id: str, agent_id: str) -> AgentConfig:
        return self.agent


class ScriptedJudge:
    """LanguageModel port fake: answers the judge with the case's scripted verdicts; nothing else is available."""

    spends_no_time = True  # written down: the turn budget never turns it down (focal.turn.budget)

    def __init__(self) -> None:
        self.verdicts: dict[str, dict[str, Any]] | None = None

    def available(self, purpose: str) -> bool:
        return purpose == "judge" and self.verdicts is not None

    def complete(self, purpose: str, messages: list[dict[str, str]], json_schema: dict[str, Any] | None = None) -> ModelReply:
        verdicts = [{"rule_id": rule_id, "compliant": v["compliant"], "reason": str(v.get("reason", ""))}
                    for rule_id, v in (self.verdicts or {}).items()]
        return ModelReply(text=json.dumps({"verdicts": verdicts}), model="scripted/judge")


def benched_agent(agent: AgentConfig, checks: Sequence[str] = CHECKS) -> AgentConfig:
    """One draft, no regeneration; the output checks the set is labelled for on, the others off."""
    enforcement = agent.enforcement.model_copy(update={
        "max_retries": 0, "relevance_check_enabled": "relevance" in checks, "grounding_check_enabled": "grounding" in checks,
    })
    return agent.model_copy(update={"enforcement": enforcement})


def build_state(agent: AgentConfig, case: Case, embedding: Sequence[float]) -> TurnState:
    """The state the pipeline would hand to enforce for this case."""
    request = TurnRequest(tenant_id=TENANT, agent_id=agent.id, session_id=f"bench-{abs(hash(case.id))}",
                          customer_id="bench-customer", turn_id=case.id, message=case.message)
    session = Session(tenant_id=TENANT, agent_id=agent.id, session_id=request.session_id, customer_id=request.customer_id,
                      active_scenario_id=case.scenario, active_step_id=case.step,
                      flow_state="waiting_for_slot" if case.scenario else "idle", turn_count=1)
    calls = []
    for tool_id, outputs in case.tools.items():
        tool = agent.tool(tool_id)
        assert tool is not None  # case_problems
        calls.append(ToolCall(tool_id=tool_id, outputs=dict(outputs), trigger="bench"))
        for key, value in outputs.items():
            session.variables[tool.output[key]] = value
    session.variables.update(case.variables)
    profile = CustomerProfile(tenant_id=TENANT, agent_id=agent.id, customer_id=request.customer_id,
                              schema_version=agent.profile_schema_version, fields=dict(case.profile))
    matched = []
    for rule_id in case.matched_rules:
        rule = agent.rule(rule_id)
        matched.append(ScoredRule(rule_id=rule_id, score=1.0, scope=rule.scope.value if rule else Scope.GLOBAL.value))
    state = TurnState(
        request=request,
        session=session,
        profile=profile,
        sensor=SensorOutput(context=Context(message=case.message, embedding=[float(x) for x in embedding])),
        route=RouteOutput(matched_rules=matched),
        tools=ToolsOutput(tool_calls=calls),
        generate=GenerateOutput(drafts=[Draft(text=case.draft, source="model")]),
    )
    state.route.decision.scenario_id, state.route.decision.step_id = case.scenario, case.step
    return state


def run_cases(
    agent_path: str | Path, cases: Sequence[Case], checks: Sequence[str] = CHECKS
) -> tuple[AgentConfig, list[Outcome]]:
    from focal.config.loader import load_agent
    from focal.stages import enforce
    from focal.wiring import local_deps

    agent = load_agent(agent_path)
    problems = case_problems(agent, cases)  # the set against the agent; which checks run is the caller's choice
    if problems:
        raise ValueError("the labelled set does not fit the agent:\n  " + "\n  ".join(problems))
    benched = benched_agent(agent, checks)
    deps = local_deps(agent_path, ":memory:")
    days = {c.today for c in cases if c.today is not None}
    if len(days) > 1:
        raise ValueError(f"the cases are set on several dates ({sorted(days)}): run each set on its own")
    if days:  # the set's own date, never the machine's: "within a few days" reads the same on any day
        noon = datetime.fromisoformat(f"{days.pop()}T12:00:00+00:00").timestamp()
        deps.clock = lambda: noon
    judge = ScriptedJudge()
    deps.configs, deps.model, deps.model_factory = _FixedAgent(benched), judge, None
    vectors = deps.embedder.embed([c.message.strip() for c in cases]) if cases else np.zeros((0, 0))

    def once(i: int, case: Case) -> Outcome:
        judge.verdicts = case.judge
        state = build_state(benched, case, vectors[i])
        t0 = time.perf_counter()
        state = enforce.run(state, deps)
        stage_ms = (time.perf_counter() - t0) * 1000
        first = state.generate.drafts[0]
        timings = dict(getattr(state.enforce.report, "timings", {}) or {})  # lanes 1 and 2
        for verdict in getattr(state.enforce.report, "checks", []) or []:  # output checks: their own ms per draft
            if verdict.draft == 0 and verdict.name not in state.enforce.report.timings:
                timings[verdict.name] = timings.get(verdict.name, 0.0) + verdict.ms
        # The always-on check of unbound facts and the default checks are measured on blind sets (`focal bench
        # drafts`); here they count only where a case names them.
        named = set(case.expected)
        counted: dict[str, str] = {v.rule_id: v.lane for v in first.violations if v.rule_id not in NOT_COUNTED or v.rule_id in named}
        return Outcome(case, counted, list(state.enforce.report.unverified), timings, stage_ms)

    if cases:
        once(0, cases[0])  # warm-up: lazy imports, ONNX session, caches
    return benched, [once(i, case) for i, case in enumerate(cases)]


NOT_COUNTED = {"unbound", *DEFAULT_RULES}


# --------------------------------------------------------------------------- the report

def _run_set(agent_path: str | Path, cases_path: str | Path, show: bool, limit: int | None) -> tuple[AgentConfig, str]:
    from focal.config.loader import load_agent

    cases = load_cases(cases_path)
    if limit is not None:
        cases = cases[:limit]
    checks = output_checks(cases_path)
    problems = case_problems(load_agent(agent_path), cases, checks)
    if problems:
        raise ValueError(f"{cases_path} does not fit the agent:\n  " + "\n  ".join(problems))
    agent, outcomes = run_cases(agent_path, cases, checks)
    return agent, format_report(agent, outcomes, str(cases_path), show, checks)


def report(agent_path: str | Path, cases_path: str | Path, show: bool = False, limit: int | None = None) -> str:
    """The main set, its guard cases (lane `guard`), then each set listed under `sets:`, on its own."""
    agent, text = _run_set(agent_path, cases_path, show, limit)
    parts = [text]
    guard_cases = load_guard_cases(cases_path)
    problems = guard_problems(agent, guard_cases)
    if problems:
        raise ValueError(f"{cases_path}: guard cases do not fit the agent:\n  " + "\n  ".join(problems))
    parts.append(f"action guards ({len(guard_cases)} guard cases of {cases_path}):\n"
                 + "\n".join(format_guards(run_guard_cases(agent, guard_cases), show)))
    for name, path in extra_sets(cases_path).items():
        parts.append(f"set {name!r}: " + _run_set(agent_path, path, show, limit)[1])
    return "\n\n".join(parts)


def cli(args) -> int:
    """`focal bench enforcement AGENT [--cases FILE] [--show] [--limit N]`."""
    agent_path = Path(args.agent)
    folder = agent_path if agent_path.is_dir() else agent_path.parent
    cases = args.cases or str(folder / "enforcement.yaml")
    try:
        print(report(args.agent, cases, show=args.show, limit=args.limit))
    except (OSError, ValueError) as exc:  # a missing or mislabelled set: say what, not a stack trace
        print(str(exc), file=sys.stderr)
        return 1
    return 0


def add_parser(bsub) -> None:
    """Register `focal bench enforcement` on the bench subparsers."""
    s = bsub.add_parser("enforcement", help="precision/recall per lane and check, latency per lane, on a labelled set")
    s.add_argument("agent", help="the agent YAML file (or its folder)")
    s.add_argument("--cases", help="labelled set (default: enforcement.yaml beside the agent)")
    s.add_argument("--show", action="store_true", help="also list the cases with a wrong verdict (ids only)")
    s.add_argument("--limit", type=int, help="only the first N cases")
    s.set_defaults(func=cli)
