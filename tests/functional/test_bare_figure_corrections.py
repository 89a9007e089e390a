"""At a confirmation that shows one amount, a correction giving a bare figure changes that amount: "actually make that
20" was not heard (no currency), the energy agent asked the same question again, and the customer's next "yes" put
on the €25 they had just corrected (attack plan of session 12, H02). The corrected figure meets the same rules as one
typed with its currency: "actually make that 5000" is refused by the €30 cap and never applied (E02). Real pipeline,
shipped newcomer agent, offline."""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.cli.conversation_tests import format_report, run_suite

ENERGY = Path(__file__).resolve().parents[1] / "data" / "newcomer_energy" / "agent.yaml"


def _passes(tmp_path: Path, correction: str, last: dict) -> None:
    conversation = {"name": correction, "setup": "tools.py:reset_state", "turns": [
        {"user": "Can you give me a credit for the trouble?"}, {"user": "EA204518"},
        {"user": "25 euros", "expect": {"response_contains": ["25.00"]}},
        {"user": correction, "expect": {"tool_calls": []}}, {"user": "yes", "expect": last}]}
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [conversation]}), encoding="utf-8")
    report = run_suite(ENERGY, suite)
    assert report.conversations and all(t.passed for c in report.conversations for t in c.turns), format_report(report)


def test_a_bare_figure_corrects_the_amount_the_confirmation_shows(tmp_path):
    _passes(tmp_path, "actually make that 20", {"tool_calls": {"apply_credit": {"amount": 20}}})


def test_a_corrected_figure_above_the_cap_is_never_applied(tmp_path):
    _passes(tmp_path, "actually make that 5000", {"tool_calls": [], "response_not_contains": ["5000", "5,000"]})
