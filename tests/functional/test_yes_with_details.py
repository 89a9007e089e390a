"""A yes followed by details, on the shipped examples: the details are read with the extractors of the values the
confirmation showed. Agreeing details confirm; a reference to a shown value gets one question quoting it; a new
value is taken and asked again; never "I didn't quite understand". Retail (a free-text address, an order id, a
tool's amount) and the tutorial's library (a count of weeks, a tool's title)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from example_tools import reset_state

from focal.cli.conversation_tests import TENANT_ID, format_report, run_suite
from focal.config.loader import load_agent

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NOT_UNDERSTOOD = "didn't quite understand"
ADDRESS = "12 Harbor Road, Portland, ME 04101"


def _address_change(*turns: dict) -> dict:
    return {"customer_id": "c-200", "turns": [
        {"user": "change the delivery address for order A1004", "expect": {"step": "ask_address"}},
        {"user": ADDRESS, "expect": {"step": "confirm_address"}},
        *turns,
    ]}


RETAIL = [
    {"name": "a yes that refers to another address asks about it, quoting the one shown", **_address_change(
        {"user": "yes, send it to my home address",
         "expect": {"step": "confirm_address", "tool_calls": [], "commands": ["Clarify"],
                    "response_contains": ["Is your home address", ADDRESS], "response_not_contains": NOT_UNDERSTOOD}},
        {"user": "yes", "expect": {"step": "address_done", "tool_calls": ["update_address"]}},
    )},
    {"name": "a model that reads the same words as a plain yes does not skip the detail question", **_address_change(
        {"user": "yes, send it to my home address",
         "model": {"sensor": {"detected_intent": "change_address", "intent_confidence": 0.95,
                              "commands": [{"name": "AffirmConfirmation", "flow": "change_address"}]}},
         "expect": {"step": "confirm_address", "tool_calls": [], "response_contains": "Is your home address"}},
    )},
    {"name": "the customer's answer to the detail question may give the right value", **_address_change(
        {"user": "sure, ship it to my office", "expect": {"tool_calls": [], "response_contains": "Is your office"}},
        {"user": "no, it's 7 Quay Street, Portland, ME 04101",
         "expect": {"step": "confirm_address", "tool_calls": [], "response_contains": "7 Quay Street"}},
        {"user": "yes", "expect": {"tool_calls": [{"update_address": {"new_address": "7 Quay Street, Portland, ME 04101"}}]}},
    )},
    {"name": "a yes whose details repeat the values shown confirms", **_address_change(
        {"user": f"yes, to {ADDRESS}", "expect": {"step": "address_done", "tool_calls": ["update_address"]}},
    )},
    {"name": "a yes for the order shown confirms", **_address_change(
        {"user": "yes, for order A1004", "expect": {"step": "address_done", "tool_calls": ["update_address"]}},
    )},
    {"name": "yes but another address: the address is taken and asked again", **_address_change(
        {"user": "yes but change it to 9 Pine Street, Portland, ME 04102",
         "expect": {"step": "confirm_address", "tool_calls": [], "response_contains": "9 Pine Street"}},
        {"user": "yes", "expect": {"tool_calls": [{"update_address": {"new_address": "9 Pine Street, Portland, ME 04102"}}]}},
    )},
    {"name": "a yes with words that cannot be placed confirms nothing, and is asked again plainly", **_address_change(
        {"user": "yes lol nvm", "expect": {"tool_calls": [], "response_contains": "answer yes",
                                           "response_not_contains": NOT_UNDERSTOOD}},
    )},
    {"name": "a yes to another amount than the one shown refunds nothing", "customer_id": "c-400", "turns": [
        {"user": "please refund order A1007", "expect": {"step": "confirm_refund", "response_contains": "$25.00"}},
        {"user": "yes, refund $40", "expect": {"tool_calls": [], "step": "confirm_refund",
                                               "response_not_contains": NOT_UNDERSTOOD}},
    ]},
]

LIBRARY = [
    {"name": "yes with more weeks than shown: the weeks are taken and asked again", "turns": [
        {"user": "I'd like to renew a book"},
        {"user": "My card is LC204518 and the book is B30117"},
        {"user": "2 weeks", "expect": {"step": "confirm", "response_contains": "for 2 weeks"}},
        {"user": "yes, but for 3 weeks", "expect": {"step": "confirm", "tool_calls": [], "response_contains": "for 3 weeks"}},
        {"user": "yes", "expect": {"tool_calls": [{"renew_loan": {"weeks": 3}}]}},
    ]},
    {"name": "yes with the weeks shown renews", "turns": [
        {"user": "I'd like to renew a book"},
        {"user": "My card is LC204518 and the book is B30117"},
        {"user": "2 weeks", "expect": {"step": "confirm"}},
        {"user": "yes, 2 weeks is fine", "expect": {"tool_calls": [{"renew_loan": {"weeks": 2}}]}},
    ]},
    {"name": "yes with the number of weeks referred to, not stated, asks about it", "turns": [
        {"user": "I'd like to renew a book"},
        {"user": "My card is LC204518 and the book is B30117"},
        {"user": "2 weeks", "expect": {"step": "confirm"}},
        {"user": "yes, for the usual weeks", "expect": {"tool_calls": [], "step": "confirm",
                                                        "response_contains": ["Is the usual weeks 2?"]}},
    ]},
]


def _run(tmp_path: Path, example: str, conversations: list[dict]):
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": conversations}, sort_keys=False))
    return run_suite(EXAMPLES / example / "agent.yaml", suite)


@pytest.fixture()
def fresh_retail():
    agent = load_agent(EXAMPLES / "retail" / "agent.yaml")
    reset_state(agent, TENANT_ID)
    yield
    reset_state(agent, TENANT_ID)


def test_retail_yes_with_details(tmp_path, fresh_retail):
    report = _run(tmp_path, "retail", RETAIL)
    assert report.passed, "\n" + format_report(report)


def test_library_yes_with_details(tmp_path):
    report = _run(tmp_path, "tutorial", LIBRARY)
    assert report.passed, "\n" + format_report(report)
