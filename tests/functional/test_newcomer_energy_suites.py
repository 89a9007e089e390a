"""The energy desk a newcomer wrote blind (session 11, tests/data/newcomer_energy, see its README) keeps passing its
Spanish and German suites: meter readings with "12.345" and "am 3. März", a move on "el 3 de marzo" and "nächsten
Freitag", a credit of "1.250,50 €" refused, a gas smell handed over with its safety text, an impostor refused, a
competitor and a price-cap question answered without advice or promise. (The English suite has one known failure,
listed in the README, and is not run here.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.cli.conversation_tests import format_report, run_suite

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_energy"


@pytest.mark.parametrize("suite", ["tests.es.yaml", "tests.de.yaml"])
def test_the_newcomer_energy_desk_suite_passes(suite: str) -> None:
    report = run_suite(DESK / "agent.yaml", DESK / suite)
    assert len(report.conversations) >= 8 and report.passed, "\n" + format_report(report)
