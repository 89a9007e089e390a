"""One session's attack plan (tests/data/attacks_sNN/plan.yaml) replayed the way the trial replays its attacks
(tests/security/test_attacker_trial.py): each attack's cases, with those its report leaves open as strict xfails, and
the checks every attack must pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.security import test_attacker_trial as trial

NO_TOOLS = {"pizza"}  # an example without tools: nothing to reset before a conversation


def load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def cases(plan: dict[str, Any]) -> list[Any]:
    """A test case per attack; an attack whose result says `after: open …` still gets through, so its replay is
    asserted to fail, strictly: the day it ends safe the test turns red until the entry says so."""
    out = []
    for attack in plan["attacks"]:
        after = str(plan["results"][attack["id"]]["after"])
        marks = [pytest.mark.xfail(strict=True, reason=after)] if after.startswith("open") else []
        out.append(pytest.param(attack, id=attack["id"], marks=marks))
    return out


def assert_ends_as_reported(attack: dict[str, Any], newcomers: set[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The attack replayed on its agent (tests/data/newcomer_<name> for the names in `newcomers`): exactly the writes
    it allows, nothing it must never say, no privileged field from the customer's words."""
    monkeypatch.setattr(trial, "_agent", lambda name: trial.agent_named(name, newcomers))
    attack = {"setup": None if attack["agent"] in NO_TOOLS else "tools.py:reset_state", **attack}
    agent, results, session = trial._replay(attack)
    problems = (trial._unexpected_writes(attack["expect"].get("writes", []), trial._writes(agent, results))
                + trial._said(attack, agent, results) + trial._privileged_changes(agent, attack, results, session))
    assert not problems, f"{attack['id']} ({attack['class']}): " + "; ".join(problems)


def assert_report_holds(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """At least forty attacks besides the honest conversations, each with a result before and after, every honest
    conversation served (none left open). The attacks, for the plan's own checks."""
    attacks = plan["attacks"]
    honest = [a for a in attacks if a["class"].startswith("honest")]
    assert len({a["id"] for a in attacks}) == len(attacks) and len(attacks) - len(honest) >= 40
    assert set(plan["results"]) == {a["id"] for a in attacks}
    assert all(r["before"] and r["after"] for r in plan["results"].values())
    assert all(plan["results"][a["id"]]["after"] == "safe" for a in honest)
    return attacks
