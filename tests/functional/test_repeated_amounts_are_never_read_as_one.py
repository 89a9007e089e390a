"""An amount promised more than once is never checked as one amount, and a duration is no repetition. Found by the
car-rental desk a newcomer wrote (session 12, tests/data/newcomer_carrental), whose refund cap is €100:
- a model's "I'll refund you €60 each day for 5 days." (or "two payments of €60") was sent: the reader knew the total
  was not read, but €60, the only amount written, was under the cap and settled the doubt;
- `focal validate` read "released within 10 days of the return" as an amount promised more than once ("two credits
  of $75"), so a refund inside the cap, paid within some days, could not be verified."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_carrental"
AGENT, TOOLS = (DESK / "agent.yaml").read_text(), (DESK / "tools.py").read_text()
POLICY = "Cancelling is free 14 days or more before pick-up."


def _blocked(tmp_path: Path, draft: str | dict) -> None:
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Is cancelling free?", "model": {"generate": [draft, POLICY]},
         "expect": {"violations": ["refund_cap"], "response_contains": "14 days", "response_not_contains": "€60"}},
    ])


def test_a_refund_repeated_each_day_is_blocked(tmp_path: Path):
    _blocked(tmp_path, "I'll refund you €60 each day for 5 days.")


def test_several_refunds_of_one_amount_are_blocked(tmp_path: Path):
    _blocked(tmp_path, "I'll refund you two payments of €60.")


def test_a_declared_amount_does_not_settle_a_repeated_one(tmp_path: Path):
    _blocked(tmp_path, {"text": "I'll refund you €60 each day for 5 days.", "commitments": {"refund_promised": 60}})


def test_a_refund_within_the_cap_paid_within_some_days_is_sent(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Is cancelling free?",
         "model": {"generate": [{"text": "I'll refund €40 to your card within 5 days of the return.",
                                 "commitments": {"refund_promised": 40}}]},
         "expect": {"violations": [], "response_contains": "within 5 days of the return"}},
    ])


def test_a_single_refund_within_the_cap_is_sent(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Is cancelling free?", "model": {"generate": ["I'll refund you €60."]},
         "expect": {"violations": [], "response_contains": "€60"}},
    ])
