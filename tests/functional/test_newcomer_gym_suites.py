"""The gym chain's membership desk a newcomer wrote blind (session 13, tests/data/newcomer_gym, see its README) keeps
passing its English, French and German suites: freezes behind an identity check (member number, postcode, date of
birth), with a medical note asked for a medical reason and 1 to 3 months only; a cancellation that says the notice
period and fee the tool returned; disputed charges, €25 refunded after a yes, €1,250.50 and 59,90 € handed to a
person, an impostor refused; personal training "next Tuesday at 6pm", "mardi prochain à 18h", "nächsten Dienstag um
18 Uhr"; home club changes; chest pain and injuries given the emergency text and a person; policy questions (notice
period, freeze policy, minimum term, guest passes, opening hours) answered by their rules rather than a flow; and model
drafts promising a free month, a refund over the cap, another gym, first-aid advice or asking for a CVV never sent.
The conversations that fail are kept apart in tests.known_failures.yaml (not run here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.cli.conversation_tests import format_report, run_suite

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_gym"


@pytest.mark.parametrize("suite", ["tests.yaml", "tests.fr.yaml", "tests.de.yaml"])
def test_the_newcomer_gym_desk_suite_passes(suite: str) -> None:
    report = run_suite(DESK / "agent.yaml", DESK / suite)
    assert len(report.conversations) >= 8 and report.passed, "\n" + format_report(report)
