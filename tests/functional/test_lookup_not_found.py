"""A flow never asks the customer to confirm, nor acts on, an object its look-up did not find: without a branch of the
agent's own, the engine says what it could not find and ends the flow (nothing is offered, a "yes" runs nothing);
validate warns of the missing branch. The agent is written here (a parcel desk whose flow has no not-found branch);
the example agents branch themselves."""

from __future__ import annotations

from pathlib import Path

import yaml
from written_agent import passes, write_agent

from focal.cli.conversation_tests import format_report, run_suite
from focal.config.loader import load_agent_file
from focal.config.validate import semantic_problems, semantic_warnings

ROOT = Path(__file__).resolve().parents[2]

AGENT = """
id: parcels
name: Parcel desk
profile_field_definitions:
  - {field_name: parcel_id, display_name: Parcel number, field_type: id, description: The parcel, sources: [message],
     pattern: '\\b[A-Z]{2}\\d{4}\\b'}
  - {field_name: parcel_found, field_type: boolean, description: The parcel exists, sources: [tool]}
  - {field_name: parcel_summary, field_type: string, description: What the parcel is, sources: [tool]}
  - {field_name: pickup_ref, field_type: string, description: The pickup reference, sources: [tool]}
tools:
  - id: find_parcel
    entrypoint: tools.py:find_parcel
    input: {parcel_id: {type: id}}
    output: {found: parcel_found, summary: parcel_summary}
    found: found
  - id: send_to_pickup
    entrypoint: tools.py:send_to_pickup
    input: {parcel_id: {type: id}}
    output: {ref: pickup_ref}
    side_effect: true
scenarios:
  - id: pickup
    name: Send a parcel to a pickup point
    entry_examples: [Send my parcel to a pickup point, I want to collect my parcel at a pickup point]
    entry_step_id: ask_parcel
    steps:
      - id: ask_parcel
        slots: [{name: parcel_id, type: id, prompt: "Which parcel is it?"}]
        action: [find_parcel]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "Shall I send parcel {parcel_id} ({parcel_summary}) to your pickup point?"
        action: [send_to_pickup]
        transitions: [{target: sent}]
      - {id: sent, response_template: "Sent: reference {pickup_ref}."}
"""
TOOLS = """
def find_parcel(parcel_id):
    if parcel_id == 'PX1001':
        return {'found': True, 'summary': 'a box of books'}
    return {'found': False, 'summary': 'no such parcel'}
def send_to_pickup(parcel_id):
    return {'ref': 'P-1'}
"""


def test_a_confirmation_is_never_asked_about_what_the_lookup_did_not_find(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Send my parcel to a pickup point", "expect": {"step": "ask_parcel"}},
        {"user": "ZZ9999",
         "expect": {"tool_calls": ["find_parcel"], "scenario": None, "response_not_contains": "Shall I",
                    "response_contains": "I couldn't find parcel number ZZ9999"}},
        {"user": "yes", "expect": {"tool_calls": []}},
    ], "not found")


def test_a_found_object_is_still_offered_and_done(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Send my parcel to a pickup point", "expect": {"step": "ask_parcel"}},
        {"user": "PX1001",
         "expect": {"step": "confirm", "response_contains": "a box of books"}},
        {"user": "yes", "expect": {"tool_calls": ["send_to_pickup"]}},
    ], "found")


def test_a_lookup_without_found_that_leaves_the_shown_facts_unknown_offers_nothing(tmp_path):
    agent = AGENT.replace("    found: found\n", "")
    tools = TOOLS.replace("return {'found': False, 'summary': 'no such parcel'}", "return {'found': False, 'summary': None}")
    passes(tmp_path, agent, tools, [
        {"user": "Send my parcel to a pickup point", "expect": {"step": "ask_parcel"}},
        {"user": "ZZ9999",
         "expect": {"scenario": None, "response_not_contains": "Shall I", "response_contains": "couldn't find"}},
        {"user": "yes", "expect": {"tool_calls": []}},
    ], "unknown facts")


def _problems(tmp_path: Path, agent: str, warnings: bool) -> list[str]:
    loaded = load_agent_file(write_agent(tmp_path, agent, TOOLS))
    assert loaded.config is not None, loaded.problems
    found = semantic_warnings(loaded.config, loaded.raw) if warnings else semantic_problems(loaded.config, loaded.raw)
    return [str(p) for p in found]


def test_validate_warns_of_a_lookup_with_no_not_found_branch(tmp_path):
    warned = _problems(tmp_path, AGENT, warnings=True)
    assert any("step 'confirm' of 'pickup'" in p and "find_parcel" in p and "when: not parcel_found" in p
               for p in warned), warned
    branched = AGENT.replace("transitions: [{target: confirm}]",
                             "transitions: [{target: gone, when: not parcel_found}, {target: confirm}]").replace(
        '      - {id: sent,', '      - {id: gone, response_template: "No parcel {parcel_id}."}\n      - {id: sent,')
    assert not any("find_parcel" in p for p in _problems(tmp_path, branched, warnings=True))


def test_validate_refuses_a_found_that_is_no_output(tmp_path):
    wrong = _problems(tmp_path, AGENT.replace("    found: found\n", "    found: exists\n"), warnings=False)
    assert any("'exists' is not an output of tool 'find_parcel'" in p for p in wrong), wrong


def _example_passes(tmp_path: Path, example: str, customer: str, turns: list[dict]) -> None:
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": example, "customer_id": customer, "turns": turns}]}))
    report = run_suite(ROOT / "examples" / example / "agent.yaml", suite)
    assert report.conversations and report.passed, "\n" + format_report(report)


def test_airline_does_not_offer_to_cancel_a_reservation_it_did_not_find(tmp_path):
    _example_passes(tmp_path, "airline", "mia_li_3668", [
        {"user": "I need to cancel reservation ZZZ999, my user id is mia_li_3668, change of plan",
         "expect": {"tool_calls": ["get_user_details", "get_reservation_details"], "response_not_contains": "Shall I",
                    "response_contains": "couldn't find reservation ZZZ999"}},
        {"user": "yes", "expect": {"tool_calls": []}},
    ])


def test_retail_does_not_offer_a_refund_for_an_order_it_did_not_find(tmp_path):
    _example_passes(tmp_path, "retail", "c-100", [
        {"user": "Please refund order Z9999", "expect": {"response_not_contains": ["Shall I", "eligible"],
                                                         "response_contains": "couldn't find order Z9999"}},
        {"user": "yes", "expect": {"tool_calls": []}},
    ])
