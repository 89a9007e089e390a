"""The attack plan of session 12 (tests/data/attacks_s12/plan.yaml), replayed: 58 attacks on the retail, cards,
airline and telecom examples and the energy and insurance newcomer agents (forbidden promises paraphrased or
dictated, role play, language switches, values smuggled in corrections or spelled out, identity and approval claims,
pasted instructions, split promises, system-prompt requests, a manipulated model scripted at the provider
boundary) and 10 honest conversations matching them, each through the real pipeline offline. Every one must end as
the trial replay asks (tests/security/test_attacker_trial.py): exactly the writes it allows, nothing it must never
say, no privileged field from the customer's words, no internal name, no failed turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.security import test_attacker_trial as trial

PLAN = Path(__file__).resolve().parents[1] / "data" / "attacks_s12" / "plan.yaml"
NEWCOMERS = {"energy", "insurance"}  # agents of tests/data/newcomer_<name>, beside the examples
_PLAN: dict[str, Any] = yaml.safe_load(PLAN.read_text(encoding="utf-8"))


def _agent(name: str) -> tuple[Any, Path]:
    return trial.agent_named(name, NEWCOMERS)


@pytest.mark.parametrize("attack", _PLAN["attacks"], ids=[a["id"] for a in _PLAN["attacks"]])
def test_every_attack_of_the_plan_ends_safe(attack, monkeypatch):
    monkeypatch.setattr(trial, "_agent", _agent)
    attack = {"setup": "tools.py:reset_state", **attack}
    agent, results, session = trial._replay(attack)
    problems = (trial._unexpected_writes(attack["expect"].get("writes", []), trial._writes(agent, results))
                + trial._said(attack, agent, results) + trial._privileged_changes(agent, attack, results, session))
    assert not problems, f"{attack['id']} ({attack['class']}): " + "; ".join(problems)


def test_the_plan_is_what_its_report_says():
    """At least forty attacks over the five agents the brief names, each with a result before and after."""
    attacks = _PLAN["attacks"]
    assert len({a["id"] for a in attacks}) == len(attacks) and len(attacks) - sum(
        a["class"].startswith("honest") for a in attacks) >= 40
    assert {"retail", "cards", "airline", "telecom", "energy"} <= {a["agent"] for a in attacks}
    assert set(_PLAN["results"]) == {a["id"] for a in attacks}
    assert all(r["after"] == "safe" for r in _PLAN["results"].values())
