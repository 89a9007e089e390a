"""Rules before menus, on the shipped examples: a question about a policy (a limit, whether something is
possible, what it costs) is answered by the rule that states it, even when its words name a flow's topic; a
request — also one put as a question — still starts the flow. And a flow whose opening depends on what a tool
returns looks it up first: retail's address change says at once that a shipped order can't be changed, and
asks a processing order for its new address without the shipped-order text."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from example_tools import reset_state

from focal.cli.conversation_tests import TENANT_ID, format_report, run_suite
from focal.config.loader import load_agent

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def ask(question: str, rule: str, not_said: str) -> dict:
    return {"name": f"policy question: {question}", "turns": [{"user": question, "expect": {
        "scenario": None, "matched_rules_include": [rule], "tool_calls": [], "response_not_contains": not_said}}]}


SUITES = {
    "retail": [
        ask("what's your refund limit?", "refund_limit", "order number"),
        ask("Is there a maximum on refunds?", "refund_limit", "order number"),
        ask("how much money can be refunded at most?", "refund_limit", "order number"),
        {"name": "a refund request put as a question starts the refund", "customer_id": "c-300", "turns": [
            {"user": "could you refund order A1005?", "expect": {
                "scenario": "refund", "tool_calls": ["lookup_order", "check_refund_eligibility"]}}]},
        {"name": "a refund request starts the refund", "turns": [
            {"user": "I want a refund for my order", "expect": {"scenario": "refund", "step": "collect_order"}}]},
        {"name": "a processing order's address change opens with the address question", "customer_id": "c-200",
         "turns": [{"user": "please change the shipping address of order A1004", "expect": {
             "step": "ask_address", "tool_calls": ["lookup_order"], "response_contains": "new delivery address",
             "response_not_contains": ["has shipped", "redirect"]}}]},
        {"name": "a shipped order's address change is told at once", "customer_id": "c-200", "turns": [
            {"user": "change the delivery address for order A1003", "expect": {
                "step": "address_too_late", "tool_calls": ["lookup_order"],
                "response_contains": ["A1003", "already shipped"], "response_not_contains": "new delivery address"}}]},
    ],
    "airline": [
        ask("is there a limit on how many bags I can check?", "bag_allowance", "user id"),
        ask("how much does it cost to add a bag to a reservation?", "bag_allowance", "user id"),
        {"name": "a request to add a bag starts the baggage flow", "turns": [
            {"user": "I want to add a checked bag to my reservation", "expect": {"scenario": "baggage"}}]},
    ],
    "telecom": [
        ask("Is there a limit on data top-ups?", "refuel_terms", "phone number"),
        ask("is it possible to add more than 2 GB?", "refuel_terms", "phone number"),
        {"name": "a request to add data starts the flow", "turns": [
            {"user": "Can you add 2 GB of data to my line?", "expect": {"scenario": "identify_customer"}}]},
    ],
}


@pytest.mark.parametrize("example", sorted(SUITES))
def test_policy_questions_get_their_rule_and_requests_their_flow(example, tmp_path):
    agent = EXAMPLES / example / "agent.yaml"
    if example == "retail":
        reset_state(load_agent(agent), TENANT_ID)
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": SUITES[example]}, sort_keys=False))
    report = run_suite(agent, suite)
    assert report.passed, "\n" + format_report(report)
