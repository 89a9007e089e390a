"""A flow hands the conversation to a person by policy: a transition with `escalate: true` (and a `when`) ends the flow
and runs the agent's handoff tool with a summary that says why — on what the customer gave (the route decides it) or on
what a step's look-up returned (the tools stage decides it). validate checks the declaration. The agent is written here
(a repair desk that refunds small repair fees itself and hands larger ones to staff)."""

from __future__ import annotations

import json
from pathlib import Path

from written_agent import passes, write_agent

from focal.config.loader import load_agent_file
from focal.config.validate import semantic_problems, semantic_warnings

AGENT = """
id: bikes
name: Repair desk
handoff_tool: transfer_to_staff
profile_field_definitions:
  - {field_name: fee, field_type: integer, description: The repair fee to give back, sources: [message]}
  - {field_name: ticket, field_type: string, description: The repair ticket, sources: [message]}
  - {field_name: ticket_fee, field_type: integer, description: The fee on the ticket, sources: [tool]}
  - {field_name: handoff_ref, field_type: string, description: The transfer's reference, sources: [tool]}
  - {field_name: credited, field_type: string, description: The credit's reference, sources: [tool]}
tools:
  - id: transfer_to_staff
    entrypoint: tools.py:transfer
    input: {summary: {type: string}}
    arguments: {summary: conversation_summary}
    output: {ref: handoff_ref}
    side_effect: true
  - id: give_back
    entrypoint: tools.py:give_back
    input: {fee: {type: integer}}
    output: {ref: credited}
    side_effect: true
  - id: read_ticket
    entrypoint: tools.py:read_ticket
    input: {ticket: {type: string}}
    output: {fee: ticket_fee}
scenarios:
  - id: fee_back
    name: Repair fee back
    entry_examples: [I want my repair fee back, Give me back the repair fee, Refund the fee for my repair]
    entry_step_id: ask
    steps:
      - id: ask
        slots: [{name: fee, type: integer, prompt: "How much was the repair fee, in dollars?"}]
        transitions:
          - {escalate: true, when: "fee > 300", reason: "a fee above 300 is given back by staff only"}
          - {target: confirm}
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "Shall I give back the repair fee of {fee} dollars?"
        action: [give_back]
        transitions: [{target: done}]
      - {id: done, response_template: "Done: reference {credited}."}
  - id: ticket_fee
    name: Fee on a ticket
    entry_examples: [Check the fee on my repair ticket, What did my repair ticket cost]
    entry_step_id: ask_ticket
    steps:
      - id: ask_ticket
        slots: [{name: ticket, prompt: "What is your repair ticket?"}]
        action: [read_ticket]
        transitions:
          - {escalate: true, when: "ticket_fee > 300"}
          - {target: told}
      - {id: told, response_template: "The fee on ticket {ticket} is {ticket_fee} dollars."}
"""
TOOLS = """
import json, pathlib
def transfer(summary):
    pathlib.Path(__file__).with_name('handed.json').write_text(json.dumps(summary))
    return {'ref': 'H-1'}
def give_back(fee):
    return {'ref': 'C-1'}
def read_ticket(ticket):
    return {'fee': 450 if ticket == 'RB9' else 20}
"""


def _summary(tmp_path: Path) -> str:
    return json.loads((tmp_path / "handed.json").read_text())


def test_a_transition_escalates_by_policy_on_what_the_customer_gave(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I want my repair fee back", "expect": {"step": "ask"}},
        {"user": "450", "expect": {"execution_path": "escalate", "tool_calls": ["transfer_to_staff"],
                                   "scenario": None, "response_not_contains": "Shall I"}},
        {"user": "yes", "expect": {"tool_calls": []}},  # nothing was offered: a yes gives nothing back
    ], "escalate")
    summary = _summary(tmp_path)
    assert "a fee above 300 is given back by staff only" in summary and "Repair fee back" in summary, summary
    assert "fee = 450" in summary, summary


def test_below_the_limit_the_flow_goes_on_and_nothing_is_handed_over(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I want my repair fee back", "expect": {"step": "ask"}},
        {"user": "120", "expect": {"step": "confirm", "tool_calls": [], "response_contains": "120 dollars"}},
        {"user": "yes", "expect": {"tool_calls": ["give_back"]}},
    ], "stays")
    assert not (tmp_path / "handed.json").exists()


def test_a_transition_escalates_on_what_a_steps_lookup_returned(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "What did my repair ticket cost?", "expect": {"step": "ask_ticket"}},
        {"user": "RB9", "expect": {"execution_path": "escalate", "tool_calls": ["read_ticket", "transfer_to_staff"]}},
    ], "lookup escalates")
    summary = _summary(tmp_path)
    assert "ticket_fee > 300" in summary and "ask_ticket" in summary, summary


def _problems(tmp_path: Path, agent: str, warnings: bool = False) -> list[str]:
    loaded = load_agent_file(write_agent(tmp_path, agent, TOOLS))
    if loaded.config is None:
        return [str(p) for p in loaded.problems]
    found = semantic_warnings(loaded.config, loaded.raw) if warnings else semantic_problems(loaded.config, loaded.raw)
    return [str(p) for p in found]


def test_validate_refuses_an_escalation_with_a_target_or_a_transition_with_neither(tmp_path):
    both = _problems(tmp_path, AGENT.replace("{escalate: true, when: \"fee > 300\"",
                                             "{escalate: true, target: confirm, when: \"fee > 300\""))
    assert any("either goes to a 'target' or has 'escalate: true'" in p for p in both), both
    neither = _problems(tmp_path, AGENT.replace("{escalate: true, when: \"ticket_fee > 300\"}", "{when: \"ticket_fee > 300\"}"))
    assert any("needs a 'target' step (or 'escalate: true')" in p for p in neither), neither


def test_validate_checks_an_escalations_condition_and_warns_without_a_handoff_tool(tmp_path):
    misspelt = _problems(tmp_path, AGENT.replace('when: "fee > 300"', 'when: "fe > 300"'))
    assert any("did you mean 'fee'" in p for p in misspelt), misspelt
    without = _problems(tmp_path, AGENT.replace("handoff_tool: transfer_to_staff\n", ""), warnings=True)
    assert any("escalates, but the agent has no handoff_tool" in p for p in without), without


VERIFY = """
id: vault
name: Vault desk
handoff_tool: transfer_to_staff
profile_field_definitions:
  - {field_name: pin, field_type: string, description: The customer's PIN, sources: [message],
     pattern: '\\b\\d{4}\\b', extraction_hints: [pin]}
  - {field_name: pin_ok, field_type: boolean, description: The PIN matched, sources: [tool]}
  - {field_name: handoff_ref, field_type: string, description: The transfer's reference, sources: [tool]}
tools:
  - id: transfer_to_staff
    entrypoint: tools.py:transfer
    input: {summary: {type: string}}
    arguments: {summary: conversation_summary}
    output: {ref: handoff_ref}
    side_effect: true
  - id: check_pin
    entrypoint: tools.py:check_pin
    input: {pin: {type: string}}
    output: {ok: pin_ok}
scenarios:
  - id: verify
    name: Verify the customer
    entry_examples: [I want to open my safe deposit box, Let me into my vault box]
    entry_step_id: ask_pin
    steps:
      - id: ask_pin
        slots: [{name: pin, prompt: "What is your four-digit PIN?"}]
        action: [check_pin]
        transitions:
          - {target: verified, when: pin_ok}
          - {escalate: true, when: "step_attempts >= 2", reason: "two failed verifications"}
          - {target: retry}
      - id: retry
        response_template: "That PIN doesn't match. Please give it again."
        transitions: [{target: verified, when: pin_ok}]
      - {id: verified, response_template: "You're verified."}
"""
VERIFY_TOOLS = TOOLS + """
def check_pin(pin):
    return {'ok': pin == '4321'}
"""


def test_after_two_failed_verifications_the_flow_escalates(tmp_path):
    passes(tmp_path, VERIFY, VERIFY_TOOLS, [
        {"user": "I want to open my safe deposit box", "expect": {"step": "ask_pin"}},
        {"user": "1111", "expect": {"step": "retry", "tool_calls": ["check_pin"], "response_contains": "doesn't match"}},
        {"user": "my pin is 2222", "expect": {"execution_path": "escalate", "tool_calls": ["check_pin", "transfer_to_staff"]}},
    ], "two failures")
    assert "two failed verifications" in _summary(tmp_path)


def test_a_right_second_try_is_verified_and_nothing_is_handed_over(tmp_path):
    passes(tmp_path, VERIFY, VERIFY_TOOLS, [
        {"user": "I want to open my safe deposit box", "expect": {"step": "ask_pin"}},
        {"user": "1111", "expect": {"step": "retry"}},
        {"user": "my pin is 4321", "expect": {"step": "verified", "tool_calls": ["check_pin"], "response_contains": "verified"}},
    ], "second try")
    assert not (tmp_path / "handed.json").exists()
