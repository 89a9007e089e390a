"""`focal bench bands`: the approval gate's decisions over the retail suite, at the default weights."""

from __future__ import annotations

import re
from pathlib import Path

from focal.bench.bands import default_suites, run_bands
from focal.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RETAIL_SUITE = EXAMPLES / "retail" / "tests.yaml"


def test_the_retail_suite_shows_every_band_where_it_belongs() -> None:
    bands = run_bands(RETAIL_SUITE)
    assert bands.weights == {"goal_understanding": 0.3, "tool_availability": 0.3,
                             "context_richness": 0.2, "tool_determinism": 0.2}
    assert bands.passed == bands.conversations  # the tools were reset: the suite passes as in CI
    by_conversation = {(d.conversation, d.path) for d in bands.decisions}
    assert ("refund happy path (A1001, $30)", "execute") in by_conversation
    assert ("change the address of a processing order (A1004)", "execute") in by_conversation
    assert any(p == "approval" and "unsure yes" in name for name, p in by_conversation)
    assert any(p == "approval" and "similarity threshold" in name for name, p in by_conversation)
    assert any(p == "clarify" and "barely understood" in name for name, p in by_conversation)
    for d in bands.decisions:  # each decision's confidence lies in its band
        assert d.confidence is not None
        assert {"execute": d.confidence >= 0.85, "approval": 0.55 <= d.confidence < 0.85,
                "clarify": d.confidence < 0.55, "rejected": True}[d.path], d
    assert bands.held >= 1  # the second yes to a pending request runs nothing and decides nothing


def test_the_command_prints_the_distribution(capsys) -> None:
    assert main(["bench", "bands", str(RETAIL_SUITE), "--show"]) == 0
    out = capsys.readouterr().out
    total = next(line for line in out.splitlines() if line.startswith("total"))
    gates, execute, approval, clarify, rejected, _held = map(int, re.findall(r"\d+", total)[1:])
    assert execute >= 1 and approval >= 1 and clarify >= 1 and rejected == 0
    assert gates == execute + approval + clarify + rejected
    assert "clarify " in out and "issue_refund" in out  # --show lists the decisions


def test_default_suites_are_the_examples_with_an_agent_beside_them() -> None:
    suites = default_suites(EXAMPLES)
    assert RETAIL_SUITE in suites
    assert all((s.parent / "agent.yaml").exists() for s in suites)
    assert main(["bench", "bands", str(EXAMPLES / "retail" / "nope.yaml")]) == 1
