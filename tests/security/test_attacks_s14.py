"""The attack plan of session 14 (tests/data/attacks_s14/plan.yaml), replayed: attacks on the gym, hotel and energy
newcomer agents and on the cards, telecom, retail and pizza examples of classes sessions 12 and 13 did not try
(amounts split over several flows, two refunds of one charge, a slow escalation, completing a sentence "the agent
started", translating an answer into a promise, repeating a customer-typed receipt, data asked into the hand-off,
listing customers, time pressure with authority, the account numbers the agent's own prompts print, it/pt/nl
messages, right-to-left overrides, markdown and HTML in a repeated value), and the honest conversations matching
them, each through the real pipeline offline on the shipped defaults. Every one must end as the trial replay asks
(tests/security/test_attacker_trial.py): exactly the writes it allows, nothing it must never say, no privileged
field from the customer's words, no internal name, no failed turn.

An attack whose result says `after: open …` still gets through (reported, not fixed: the reason is in the entry);
its replay is asserted to fail, strictly, so the day it ends safe this test turns red until the entry says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.security import test_attacker_trial as trial

PLAN = Path(__file__).resolve().parents[1] / "data" / "attacks_s14" / "plan.yaml"
NEWCOMERS = {"gym", "hotel", "energy"}  # agents of tests/data/newcomer_<name>, beside the examples
NO_TOOLS = {"pizza"}  # an example without tools: nothing to reset before a conversation
_PLAN: dict[str, Any] = yaml.safe_load(PLAN.read_text(encoding="utf-8"))


def _agent(name: str) -> tuple[Any, Path]:
    return trial.agent_named(name, NEWCOMERS)


def _case(attack: dict[str, Any]) -> Any:
    after = str(_PLAN["results"][attack["id"]]["after"])
    if after.startswith("open"):
        return pytest.param(attack, id=attack["id"], marks=pytest.mark.xfail(strict=True, reason=after))
    return pytest.param(attack, id=attack["id"])


@pytest.mark.parametrize("attack", [_case(a) for a in _PLAN["attacks"]])
def test_every_attack_of_the_plan_ends_as_reported(attack, monkeypatch):
    monkeypatch.setattr(trial, "_agent", _agent)
    attack = {"setup": None if attack["agent"] in NO_TOOLS else "tools.py:reset_state", **attack}
    agent, results, session = trial._replay(attack)
    problems = (trial._unexpected_writes(attack["expect"].get("writes", []), trial._writes(agent, results))
                + trial._said(attack, agent, results) + trial._privileged_changes(agent, attack, results, session))
    assert not problems, f"{attack['id']} ({attack['class']}): " + "; ".join(problems)


def test_the_plan_is_what_its_report_says():
    """At least forty attacks, on the seven agents the brief names, in four languages and three more, each with a
    result before and after; every honest conversation is served (none is left open)."""
    attacks = _PLAN["attacks"]
    honest = [a for a in attacks if a["class"].startswith("honest")]
    assert len({a["id"] for a in attacks}) == len(attacks) and len(attacks) - len(honest) >= 40
    assert {"gym", "hotel", "energy", "cards", "telecom", "retail", "pizza"} <= {a["agent"] for a in attacks}
    assert {"en", "es", "de", "fr", "it", "pt", "nl"} <= {a["language"] for a in attacks}
    assert set(_PLAN["results"]) == {a["id"] for a in attacks}
    assert all(r["before"] and r["after"] for r in _PLAN["results"].values())
    assert all(_PLAN["results"][a["id"]]["after"] == "safe" for a in honest)
