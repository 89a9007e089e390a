"""The car-rental desk a newcomer wrote blind (session 12, tests/data/newcomer_carrental, see its README) keeps passing
its English, French and Spanish suites: a booking moved to "next Friday" "at 5pm", "le 3 mars" "à 17h" and "el 3 de
marzo"; a cancellation that says the fee the tool returned; a customer who changes their mind; policy questions (the
cancellation fee, the deposit, fuel, the young-driver fee) answered by their rules rather than a flow; an injured
passenger given the emergency text and a person; charge disputes behind an identity check, with €1,250.50 handed to a
person and an impostor refused; a second driver under 21 refused; competitor, legal and off-topic questions."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.cli.conversation_tests import format_report, run_suite

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_carrental"


@pytest.mark.parametrize("suite", ["tests.yaml", "tests.fr.yaml", "tests.es.yaml"])
def test_the_newcomer_carrental_desk_suite_passes(suite: str) -> None:
    report = run_suite(DESK / "agent.yaml", DESK / suite)
    assert len(report.conversations) >= 8 and report.passed, "\n" + format_report(report)
