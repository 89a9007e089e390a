"""A guard's cap on a quantity the customer chooses holds on the conversation's total (focal.dialogue.running_totals):
which arguments are summed, the arguments a guard is checked on a second time, and what a verdict on the total says."""

from __future__ import annotations

from pathlib import Path

from focal.config.loader import load_agent
from focal.dialogue import running_totals
from focal.enforcement import guards
from focal.models.session import Session
from focal.models.turn import GuardVerdict

ROOT = Path(__file__).resolve().parents[2]
ENERGY = load_agent(ROOT / "tests" / "data" / "newcomer_energy" / "agent.yaml")
RETAIL = load_agent(ROOT / "examples" / "retail" / "agent.yaml")


def _session() -> Session:
    return Session(tenant_id="t", agent_id="a", session_id="s", customer_id="c")


def _tool(agent, tool_id):
    tool = agent.tool(tool_id)
    assert tool is not None
    return tool


def test_only_customer_chosen_numbers_of_side_effecting_tools_are_summed():
    assert running_totals.summed_arguments(ENERGY, _tool(ENERGY, "apply_credit")) == ["amount"]  # credit_amount: message
    assert running_totals.summed_arguments(ENERGY, _tool(ENERGY, "verify_customer")) == []  # no side effect
    assert running_totals.summed_arguments(ENERGY, _tool(ENERGY, "create_payment_plan")) == ["plan_months"]
    assert running_totals.summed_arguments(RETAIL, _tool(RETAIL, "issue_refund")) == []  # order_total: a tool's value


def test_a_second_call_is_checked_on_the_total_it_brings_the_conversation_to():
    tool, session = _tool(ENERGY, "apply_credit"), _session()
    call = {"account_number": "EA204518", "amount": 25.0}
    assert running_totals.with_totals(ENERGY, tool, call, session) == {}  # nothing moved yet: the call's own check
    running_totals.add(ENERGY, tool, call, session)
    assert session.running_totals == {"apply_credit.amount": 25.0}
    assert running_totals.with_totals(ENERGY, tool, {**call, "amount": 10.0}, session) == {**call, "amount": 35.0}
    rule = next(r for r in ENERGY.rules if r.id == "credit_guard")
    assert guards.evaluate(rule, {"amount": 10.0}).passed and not guards.evaluate(rule, {"amount": 35.0}).passed


def test_a_guard_holds_only_if_it_holds_on_both_and_the_total_says_why():
    own = [GuardVerdict(rule_id="cap", passed=True, reason="holds"), GuardVerdict(rule_id="yes", passed=True)]
    total = [GuardVerdict(rule_id="cap", passed=False, reason="amount <= 30 is false"), GuardVerdict(rule_id="yes", passed=True)]
    both = guards.both(own, total)
    assert [v.passed for v in both] == [False, True] and "total" in both[0].reason
    low = guards.both([GuardVerdict(rule_id="min", passed=False, reason="low")], [GuardVerdict(rule_id="min", passed=True)])
    assert low[0].passed is False  # a lower bound is never met by adding up


def test_totals_saved_by_two_turns_keep_the_higher_of_each():
    assert running_totals.merged({"a.x": 10.0}, {"a.x": 25.0, "b.y": 1.0}) == {"a.x": 25.0, "b.y": 1.0}
