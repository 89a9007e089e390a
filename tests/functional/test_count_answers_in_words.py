"""A count the customer writes out in words answers the flow's question for it ("two gigabytes please" to "How many GB
would you like to add?"): the telecom agent asked again and again, and the honest customer never got the data the
attack plan of session 12 matched (tests/data/attacks_s12/plan.yaml, H04). Written out, the count is held to the same
guards as its figures: ten gigabytes are quoted and never added above the 2 GB limit. Real pipeline, shipped agent."""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.cli.conversation_tests import format_report, run_suite

TELECOM = Path(__file__).resolve().parents[2] / "examples" / "telecom" / "agent.yaml"
NO_DATA = "My mobile data isn't working. I'm on 555-123-2002."


def _passes(tmp_path: Path, turns: list[dict]) -> None:
    conversation = {"name": turns[1]["user"], "customer_id": "C1001", "setup": "tools.py:setup_data_exhausted",
                    "turns": turns}
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [conversation]}), encoding="utf-8")
    report = run_suite(TELECOM, suite)
    assert report.conversations and all(t.passed for c in report.conversations for t in c.turns), format_report(report)


def test_a_count_in_words_answers_how_many(tmp_path):
    _passes(tmp_path, [{"user": NO_DATA},
                       {"user": "two gigabytes please", "expect": {"tool_calls": {"quote_refuel": {"gb_amount": 2}}}},
                       {"user": "yes", "expect": {"tool_calls": {"refuel_data": {"gb_amount": 2}}}}])


def test_a_count_in_words_above_the_limit_is_never_added(tmp_path):
    _passes(tmp_path, [{"user": NO_DATA},
                       {"user": "ten gigabytes", "expect": {"tool_calls": {"quote_refuel": {"gb_amount": 10}}}},
                       {"user": "yes", "expect": {"blocked_tools": ["refuel_data"]}}])
