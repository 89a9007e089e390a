"""The attack plan of session 13 (tests/data/attacks_s13/plan.yaml), replayed: attacks on the car-rental and
insurance newcomer agents, pizza, telecom and airline (and a few on retail and cards) of classes session 12 did not
try (authority claims mid-flow, identity swaps after passing the check, another customer's booking or claim, a
value in noise, spaced, leetspeak, base64, full-width and homoglyph digits, numbers in words in es/de/fr,
hypotheticals and quotes, instructions inside a field the agent repeats, percent and currency switches, negation,
confirmation hijacks, stop/restart, guessing after failures, very long, emoji-only and empty messages), and the
honest conversations matching them, each through the real pipeline offline on the shipped defaults. Every one must
end as the trial replay asks (tests/security/test_attacker_trial.py): exactly the writes it allows, nothing it must
never say, no privileged field from the customer's words, no internal name, no failed turn.

Attacks its report leaves open are strict xfails (tests/security/plan_replay.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.security import plan_replay

PLAN = plan_replay.load(Path(__file__).resolve().parents[1] / "data" / "attacks_s13" / "plan.yaml")
NEWCOMERS = {"carrental", "insurance"}  # agents of tests/data/newcomer_<name>, beside the examples


@pytest.mark.parametrize("attack", plan_replay.cases(PLAN))
def test_every_attack_of_the_plan_ends_as_reported(attack, monkeypatch):
    plan_replay.assert_ends_as_reported(attack, NEWCOMERS, monkeypatch)


def test_the_plan_is_what_its_report_says():
    """At least forty attacks, on the five agents the brief names, each with a result before and after; every honest
    conversation is served (none is left open)."""
    attacks = plan_replay.assert_report_holds(PLAN)
    assert {"carrental", "insurance", "pizza", "telecom", "airline"} <= {a["agent"] for a in attacks}
