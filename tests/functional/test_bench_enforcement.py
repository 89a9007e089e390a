"""`focal bench enforcement`: the labelled sets fit their agents, the bench runs the real enforce stage,
and lane 1 is exact on every case not marked hard."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.bench.enforcement import (
    CHECKS,
    case_problems,
    extra_sets,
    format_report,
    lane_of,
    load_cases,
    output_checks,
    run_cases,
    score,
)
from focal.bench.guards import guard_problems, load_guard_cases, run_guard_cases
from focal.config.loader import load_agent
from focal.enforcement.guards import is_guard
from focal.main import main

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
    responses = {r.id for r in agent.global_hard_constraints() if not is_guard(r)}
    assert responses | set(CHECKS) <= expected
    guards = {r.id for r in agent.global_hard_constraints() if is_guard(r)}
    assert guards and guards <= {g for c in load_guard_cases(RETAIL_CASES) for g in c.blocked_by}
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
    assert "no model: subjective rules marked unverified" in judge_line  # the demo agent opts into mark_unverified


# ------------------------------------------------------------------ paraphrase set, held-out lists, guard cases

PARAPHRASES = ROOT / "examples" / "retail" / "enforcement_paraphrases.yaml"


def test_the_main_set_lists_the_paraphrase_set_and_held_out_lists():
    sets = extra_sets(RETAIL_CASES)
    assert sets["paraphrases"] == PARAPHRASES and {"held_out", "held_out_2"} <= set(sets)
    agent = load_agent(RETAIL)
    for path in sets.values():
        assert case_problems(agent, load_cases(path), output_checks(path)) == []


def test_the_paraphrase_set_is_large_and_varied():
    cases = load_cases(PARAPHRASES)
    violating = [c for c in cases if c.expected]
    compliant = [c for c in cases if not c.expected]
    assert len(cases) >= 200 and len(violating) >= 100 and len(compliant) >= 100
    by_draft: dict[str, set] = {}
    for c in cases:  # a draft appears twice only to contrast its label (e.g. the same promise to a Premium member)
        by_draft.setdefault(c.draft, set()).add(c.expected)
    assert all(len(labels) == sum(c.draft == d for c in cases) for d, labels in by_draft.items())
    assert sum("refund_cap" in c.expected for c in cases) >= 80
    assert {"no_competitors", "no_card_echo"} <= {e for c in cases for e in c.expected}


def test_offline_the_paraphrase_set_meets_the_targets():
    """Recall 100 % on violating drafts; at most 3 % of compliant drafts blocked (no model configured)."""
    agent, outcomes = run_cases(RETAIL, load_cases(PARAPHRASES), output_checks(PARAPHRASES))
    violating = [o for o in outcomes if o.case.expected]
    compliant = [o for o in outcomes if not o.case.expected]
    missed = [o.case.id for o in violating if not o.case.expected <= set(o.predicted)]
    blocked = [o.case.id for o in compliant if o.predicted]
    assert missed == []
    assert len(blocked) <= 0.03 * len(compliant), blocked


def test_the_guard_cases_get_the_expected_verdicts():
    agent = load_agent(RETAIL)
    cases = load_guard_cases(RETAIL_CASES)
    assert guard_problems(agent, cases) == []
    assert sum(c.expected_blocked for c in cases) >= 5 and sum(not c.expected_blocked for c in cases) >= 5
    wrong = [o.case.id for o in run_guard_cases(agent, cases) if not o.correct]
    assert wrong == []


def test_a_mislabelled_guard_case_is_named(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("cases: []\nguard_cases:\n  - {id: g, tool: issue_refundd, arguments: {order_idd: A1}, expected: blocked,"
                   " blocked_by: [refund_cap]}\n", encoding="utf-8")
    problems = guard_problems(load_agent(RETAIL), load_guard_cases(bad))
    assert any("issue_refundd" in p for p in problems) and any("'refund_cap'" in p for p in problems)


def test_the_bench_prints_recall_false_blocks_and_every_lane_of_each_set(capsys):
    assert main(["bench", "enforcement", str(RETAIL)]) == 0
    out = capsys.readouterr().out
    for lane in ("deterministic", "judge", "relevance", "grounding", "guard"):
        assert f"\n{lane} " in out
    assert "set 'paraphrases': " in out and "set 'held_out_2': " in out
    paraphrases = out[out.index("set 'paraphrases': "):out.index("set 'held_out': ")]
    assert "violating drafts caught (every expected id reported): 118/118 (100.0%)" in paraphrases
    assert "false-block rate on compliant drafts: 0/107 (0.0%)" in paraphrases
    assert "guard calls: blocked as expected" in out and "p50 ms" in out
