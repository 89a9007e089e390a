"""`focal bench enforcement`: the labelled sets fit their agents, the bench runs the real enforce stage,
and lane 1 is exact on every case not marked hard."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.cli.bench_enforcement import (
    CHECKS,
    case_problems,
    format_report,
    lane_of,
    load_cases,
    output_checks,
    run_cases,
    score,
)
from focal.cli.main import main
from focal.config.loader import load_agent

ROOT = Path(__file__).resolve().parents[2]
RETAIL = ROOT / "examples" / "retail" / "agent.yaml"
RETAIL_CASES = ROOT / "examples" / "retail" / "enforcement.yaml"
DEMO = ROOT / "examples" / "enforcement_demo" / "agent.yaml"
DEMO_CASES = ROOT / "examples" / "enforcement_demo" / "enforcement.yaml"


@pytest.mark.parametrize(("agent", "cases", "at_least"), [(RETAIL, RETAIL_CASES, 200), (DEMO, DEMO_CASES, 30)])
def test_the_labelled_set_fits_its_agent(agent, cases, at_least):
    loaded = load_cases(cases)
    assert len(loaded) >= at_least
    assert case_problems(load_agent(agent), loaded, output_checks(cases)) == []
    assert any(c.hard for c in loaded) and any(not c.expected for c in loaded)


def test_the_retail_set_covers_every_hard_constraint_and_both_output_checks():
    agent = load_agent(RETAIL)
    cases = load_cases(RETAIL_CASES)
    expected = {check for c in cases for check in c.expected}
    assert {r.id for r in agent.global_hard_constraints()} | set(CHECKS) <= expected
    per_check = {check: sum(check in c.expected for c in cases) for check in CHECKS}
    labelled_for_checks = [c for c in cases if c.category in CHECKS]
    assert len(labelled_for_checks) >= 40 and all(n >= 10 for n in per_check.values())
    assert sum(c.hard for c in cases) >= 15


def test_a_mislabelled_case_is_named(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "cases:\n"
        "  - {id: x, context: {scenario: refund, step: nowhere}, message: hi, draft: hello, violations: [refund_capp]}\n",
        encoding="utf-8",
    )
    problems = case_problems(load_agent(RETAIL), load_cases(bad))
    assert any("step 'nowhere'" in p for p in problems)
    assert any("'refund_capp' is neither a rule nor a check" in p for p in problems)
    assert main(["bench", "enforcement", str(RETAIL), "--cases", str(bad)]) == 1


def test_the_bench_prints_the_per_lane_table_on_a_slice(capsys):
    assert main(["bench", "enforcement", str(RETAIL), "--limit", "12"]) == 0
    out = capsys.readouterr().out
    for lane in ("deterministic", "judge", "relevance", "grounding"):
        assert f"\n{lane} " in out
    assert "  refund_cap " in out and "false-block rate on compliant drafts:" in out
    assert "p50 ms" in out and "p95 ms" in out


def _lane1(outcomes, agent):
    lanes, _ = score(agent, outcomes, include_hard=False)
    return lanes["deterministic"]


@pytest.mark.parametrize(("agent_path", "cases_path"), [(RETAIL, RETAIL_CASES), (DEMO, DEMO_CASES)])
def test_lane_one_is_exact_on_the_cases_not_marked_hard(agent_path, cases_path):
    cases = [c for c in load_cases(cases_path) if not c.hard]
    # Lane 1 only: the output checks are measured by the bench, not asserted here.
    agent, outcomes = run_cases(agent_path, cases, checks=())
    wrong = []
    for o in outcomes:
        want = {c for c in o.case.expected if lane_of(agent, c) == "deterministic"}
        got = {c for c, lane in o.predicted.items() if lane == "deterministic"}
        if want != got:
            wrong.append(f"{o.case.id}: expected {sorted(want)}, got {sorted(got)}")
    assert wrong == []
    tally = _lane1(outcomes, agent)
    assert tally.precision == 1.0 and tally.recall == 1.0


def test_the_judge_lane_uses_the_scripted_verdicts_and_otherwise_reports_unverified():
    cases = [c for c in load_cases(DEMO_CASES) if c.category == "health_claims"]
    agent, outcomes = run_cases(DEMO, cases, checks=())
    by_id = {o.case.id: o for o in outcomes}
    assert by_id["health-cures"].predicted == {"no_health_claims": "judge"}
    assert by_id["health-no-model"].predicted == {} and by_id["health-no-model"].unverified == ["no_health_claims"]
    report = format_report(agent, outcomes, "demo", checks=())
    assert "scripted verdicts" in report and "off (the set is not labelled for it)" in report


def test_without_scripted_verdicts_the_judge_lane_says_no_model(tmp_path):
    cases = [c for c in load_cases(DEMO_CASES) if c.category == "plans"]
    agent, outcomes = run_cases(DEMO, cases, checks=())
    judge_line = next(line for line in format_report(agent, outcomes, "demo", checks=()).splitlines()
                      if line.startswith("judge"))
    assert "no model: unverified" in judge_line
