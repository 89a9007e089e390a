"""`focal validate` warns at a side-effecting tool no guard of the agent's identity check stops (the hotel desk's
cancellation ran for whoever typed the reservation number its prompt prints as an example): not for a tool a guard
of the check stops, not for one whose function takes the authenticated customer, not for the hand-off tool, and not
in an agent without an identity check."""

from __future__ import annotations

from pathlib import Path

from focal.config.loader import load_agent
from focal.config.validate import semantic_warnings
from focal.models.agent import Rule

ROOT = Path(__file__).resolve().parents[2]
HOTEL = ROOT / "tests" / "data" / "newcomer_hotel" / "agent.yaml"


def _unguarded(agent) -> list[str]:
    return [p.path for p in semantic_warnings(agent) if "no guard reads the identity check" in p.message]


def _tool_path(agent, tool_id: str) -> str:
    return f"tools[{[t.id for t in agent.tools].index(tool_id)}].side_effect"


def test_a_side_effecting_tool_no_identity_guard_stops_is_warned_at():
    agent = load_agent(HOTEL)
    warned = _unguarded(agent)
    assert _tool_path(agent, "cancel_reservation") in warned and _tool_path(agent, "change_reservation") in warned
    assert _tool_path(agent, "issue_voucher") not in warned  # voucher_guard reads identity_verified
    assert _tool_path(agent, agent.handoff_tool or "") not in warned
    assert _tool_path(agent, "verify_guest") not in warned and _tool_path(agent, "find_reservation") not in warned


def test_a_guard_on_the_identity_check_ends_the_warning():
    agent = load_agent(HOTEL)
    guard = Rule(id="verified_cancel", condition_text="A reservation is about to be cancelled",
                 action_text="Only cancel for a verified guest.", is_hard_constraint=True,
                 guarded_tool_ids=["cancel_reservation"], enforcement_expression="identity_verified")
    guarded = agent.model_copy(update={"rules": [*agent.rules, guard]})
    assert _tool_path(guarded, "cancel_reservation") not in _unguarded(guarded)
    assert _tool_path(guarded, "change_reservation") in _unguarded(guarded)


def test_agents_whose_tools_check_the_customer_or_that_have_no_check_are_not_warned():
    for name in ("retail", "cards", "telecom", "airline", "pizza"):
        assert _unguarded(load_agent(ROOT / "examples" / name / "agent.yaml")) == [], name
