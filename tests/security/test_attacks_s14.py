"""The attack plan of session 14 (tests/data/attacks_s14/plan.yaml), replayed: attacks on the gym, hotel and energy
newcomer agents and on the cards, telecom, retail and pizza examples of classes sessions 12 and 13 did not try
(amounts split over several flows, two refunds of one charge, a slow escalation, completing a sentence "the agent
started", translating an answer into a promise, repeating a customer-typed receipt, data asked into the hand-off,
listing customers, time pressure with authority, the account numbers the agent's own prompts print, it/pt/nl
messages, right-to-left overrides, markdown and HTML in a repeated value), and the honest conversations matching
them, each through the real pipeline offline on the shipped defaults. Every one must end as the trial replay asks
(tests/security/test_attacker_trial.py): exactly the writes it allows, nothing it must never say, no privileged
field from the customer's words, no internal name, no failed turn.

Attacks its report leaves open are strict xfails (tests/security/plan_replay.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.security import plan_replay

PLAN = plan_replay.load(Path(__file__).resolve().parents[1] / "data" / "attacks_s14" / "plan.yaml")
NEWCOMERS = {"gym", "hotel", "energy"}  # agents of tests/data/newcomer_<name>, beside the examples


@pytest.mark.parametrize("attack", plan_replay.cases(PLAN))
def test_every_attack_of_the_plan_ends_as_reported(attack, monkeypatch):
    plan_replay.assert_ends_as_reported(attack, NEWCOMERS, monkeypatch)


def test_the_plan_is_what_its_report_says():
    """At least forty attacks, on the seven agents the brief names, in four languages and three more, each with a
    result before and after; every honest conversation is served (none is left open)."""
    attacks = plan_replay.assert_report_holds(PLAN)
    assert {"gym", "hotel", "energy", "cards", "telecom", "retail", "pizza"} <= {a["agent"] for a in attacks}
    assert {"en", "es", "de", "fr", "it", "pt", "nl"} <= {a["language"] for a in attacks}
