"""The other example agents' conversation suites pass (the retail suite has its own test, which
also resets the retail tools' state; the tutorial's runs in test_docs_tutorial.py). A suite that gives the
benchmark's number of tasks (`tasks_total`) covers every one of them: the telecom suite, the 20 tasks of
τ²-bench's small telecom set."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.cli.conversation_tests import format_report, run_suite

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SUITES = sorted(p for p in EXAMPLES.glob("*/tests.yaml") if p.parent.name not in ("retail", "cards", "airline", "tutorial"))


def test_there_are_other_example_suites():
    assert {"guardrails", "telecom"} <= {p.parent.name for p in SUITES}


@pytest.mark.parametrize("suite", SUITES, ids=lambda p: p.parent.name)
def test_example_suite_passes(suite: Path) -> None:
    report = run_suite(suite.parent / "agent.yaml", suite)
    assert report.conversations and report.passed, "\n" + format_report(report)
    if report.tasks_total is not None:
        assert len(report.tasks_covered) == report.tasks_total, format_report(report)


LANGUAGE_SUITES = sorted(EXAMPLES.glob("*/tests.??.yaml"))


def test_there_are_suites_in_other_languages():
    assert {(p.parent.name, p.name) for p in LANGUAGE_SUITES} >= {
        (agent, f"tests.{lang}.yaml") for agent in ("tutorial", "cards") for lang in ("es", "de", "fr")}


@pytest.mark.parametrize("suite", LANGUAGE_SUITES, ids=lambda p: f"{p.parent.name}-{p.name}")
def test_an_example_suite_in_another_language_passes(suite: Path) -> None:
    """The agent answers a customer writing Spanish, German or French in that language: its flows, confirmations,
    rules and out-of-scope text (the suites reset the tools' state they change)."""
    report = run_suite(suite.parent / "agent.yaml", suite)
    assert len(report.conversations) >= 4 and report.passed, "\n" + format_report(report)
