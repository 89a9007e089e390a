"""The hotel guest desk a newcomer wrote blind (session 13, tests/data/newcomer_hotel, see its README) keeps passing
its English, German and Spanish suites: a stay moved "from the 3rd to the 5th of May", "vom 3. bis 5. Mai" and "del 3
al 5 de mayo" with the price the tool returned; a room type corrected at the confirmation; a sold-out suite; a
cancellation that says the fee and the refund the tool returned; a guest who keeps the reservation after all; policy
questions (check-in, pets, breakfast, parking, what it costs to cancel) answered by their rules rather than a flow;
complaints behind an identity check (reservation number, surname, email), with €1,250.50 and 1.250,50 € handed to a
person and an impostor refused; late check-out and lost property; an unwell guest given the emergency text and a
person; a person asked for inside a flow; competitor, medical, legal, card and theft questions; scripted drafts
promising an upgrade, a free night or naming a competitor blocked. Conversations that still fail are kept apart in
tests.known_failures.yaml (not run here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.cli.conversation_tests import format_report, run_suite

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_hotel"


@pytest.mark.parametrize("suite", ["tests.yaml", "tests.de.yaml", "tests.es.yaml"])
def test_the_newcomer_hotel_desk_suite_passes(suite: str) -> None:
    report = run_suite(DESK / "agent.yaml", DESK / suite)
    assert len(report.conversations) >= 8 and report.passed, "\n" + format_report(report)
