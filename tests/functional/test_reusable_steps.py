"""A flow written once (identity check) is called from the steps of other flows: each caller resumes where it
called with the values the called flow collected, a member verified once is not asked again, cancelling the
called flow cancels its caller, and a chain of calls that comes back to its caller is refused by validate.
The agent is written here: a gym desk whose freeze and cancel flows both start by verifying the member."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes, write_agent

from focal.config.loader import load_agent_file
from focal.config.validate import semantic_problems

AGENT = """
id: gym
name: Gym desk
profile_field_definitions:
  - {field_name: member_id, field_type: string, description: The member's number, sources: [message],
     pattern: '\\b[A-Z]{2}\\d{4}\\b', validation_rules: ["len(value) == 6"]}
  - {field_name: postcode, field_type: string, description: The member's postcode, sources: [message]}
  - {field_name: member_name, field_type: string, description: Name on the membership, sources: [tool]}
  - {field_name: freeze_length, field_type: enum, description: How long the freeze lasts,
     allowed_values: [week, month, quarter], sources: [message]}
  - {field_name: freeze_ref, field_type: string, description: Reference of the freeze, sources: [tool]}
  - {field_name: cancel_ref, field_type: string, description: Reference of the cancellation, sources: [tool]}
tools:
  - id: find_member
    kind: python
    entrypoint: tools.py:find_member
    input: {member_id: {type: string}, postcode: {type: string}}
    output: {name: member_name}
  - id: freeze_membership
    kind: python
    entrypoint: tools.py:freeze
    input: {member_id: {type: string}, freeze_length: {type: enum}}
    output: {ref: freeze_ref}
    side_effect: true
  - id: cancel_membership
    kind: python
    entrypoint: tools.py:cancel
    input: {member_id: {type: string}}
    output: {ref: cancel_ref}
    side_effect: true
scenarios:
  - id: verify_member
    name: Verify the member
    entry_examples: [I need to verify my membership]
    entry_step_id: ask_id
    steps:
      - id: ask_id
        slots:
          - {name: member_id, prompt: "What is your six-character member number?"}
          - {name: postcode, prompt: "And the postcode on your membership?"}
        action: [find_member]
  - id: freeze
    name: Freeze a membership
    entry_examples: [I want to freeze my membership, Pause my gym membership, Freeze my plan for a while]
    entry_step_id: verify
    steps:
      - id: verify
        call: verify_member
        transitions: [{target: ask_length}]
      - id: ask_length
        slots: [{name: freeze_length, type: enum, prompt: "Thanks {member_name}. For a week, a month or a quarter?"}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: I'll freeze membership {member_id} for a {freeze_length}. Shall I go ahead?
        action: [freeze_membership]
        transitions: [{target: done}]
      - id: done
        response_template: Your membership is frozen (reference {freeze_ref}).
  - id: cancel
    name: Cancel a membership
    entry_examples: [I want to cancel my membership, End my gym contract, Close my membership please]
    entry_step_id: verify
    steps:
      - id: verify
        call: verify_member
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: I'll cancel membership {member_id} for {member_name}. Shall I go ahead?
        action: [cancel_membership]
        transitions: [{target: done}]
      - id: done
        response_template: Your membership is cancelled (reference {cancel_ref}).
"""
TOOLS = """
def find_member(member_id, postcode):
    return {'name': 'Dana'}

def freeze(member_id, freeze_length):
    return {'ref': 'FZ-' + member_id}

def cancel(member_id):
    return {'ref': 'CX-' + member_id}
"""


def _write(tmp_path: Path, agent: str = AGENT) -> Path:
    return write_agent(tmp_path, agent, TOOLS)


def _run(tmp_path: Path, turns: list[dict], agent: str = AGENT) -> None:
    passes(tmp_path, agent, TOOLS, turns, "calls")


def test_a_called_flow_runs_first_and_its_caller_resumes_with_its_values(tmp_path):
    _run(tmp_path, [
        {"user": "I want to freeze my membership", "expect": {"scenario": "verify_member", "step": "ask_id",
                                                              "response_contains": "member number"}},
        {"user": "GM4821", "expect": {"scenario": "verify_member", "response_contains": "postcode"}},
        {"user": "SW1A 2AA", "expect": {"scenario": "freeze", "step": "ask_length", "tool_calls": ["find_member"],
                                        "response_contains": "Thanks Dana"}},
        {"user": "a month", "expect": {"step": "confirm", "response_contains": "GM4821 for a month"}},
        {"user": "yes", "expect": {"tool_calls": [{"freeze_membership": {"member_id": "GM4821", "freeze_length": "month"}}],
                                   "response_contains": "FZ-GM4821"}},
    ])


def test_a_member_verified_once_is_not_asked_again_by_the_next_flow(tmp_path):
    _run(tmp_path, [
        {"user": "I want to freeze my membership", "expect": {"scenario": "verify_member"}},
        {"user": "GM4821", "expect": {"scenario": "verify_member"}},
        {"user": "SW1A 2AA", "expect": {"scenario": "freeze", "step": "ask_length"}},
        {"user": "actually no, I want to cancel my membership",
         "expect": {"scenario": "cancel", "step": "confirm", "response_contains": "GM4821 for Dana",
                    "response_not_contains": "member number"}},
    ])


def test_cancelling_the_called_flow_cancels_its_caller(tmp_path):
    _run(tmp_path, [
        {"user": "I want to cancel my membership", "expect": {"scenario": "verify_member", "step": "ask_id"}},
        {"user": "never mind, forget it", "expect": {"scenario": None, "tool_calls": []}},
        {"user": "GM4821", "expect": {"tool_calls": []}},
    ])


def _problems(tmp_path: Path, agent: str) -> list[str]:
    loaded = load_agent_file(_write(tmp_path, agent))
    assert loaded.config is not None, loaded.problems
    return [f"{p.path}: {p.message}" for p in semantic_problems(loaded.config, loaded.raw) if p.severity == "error"]


def test_validate_refuses_a_call_to_nothing_and_a_cycle_of_calls(tmp_path):
    missing = AGENT.replace("call: verify_member\n        transitions: [{target: ask_length}]",
                            "call: verify_membr\n        transitions: [{target: ask_length}]")
    assert any("scenario 'verify_membr' does not exist" in p and "verify_member" in p for p in _problems(tmp_path, missing))
    cycle = AGENT.replace("        action: [find_member]\n",
                          "        action: [find_member]\n        call: freeze\n")
    found = _problems(tmp_path, cycle)
    assert any("calls come back to this scenario" in p for p in found), found
    assert not _problems(tmp_path, AGENT)


def test_a_called_flow_entered_on_its_own_never_says_its_instructions_or_nothing(tmp_path):
    """A step's `instructions` are for the model: a flow finished offline at a step with no template of its own
    answers neutrally, never "Ask for the member number…" and never an empty answer (newcomer finding)."""
    agent = AGENT.replace("      - id: ask_id\n", "      - id: ask_id\n        instructions: Ask for the member number and postcode.\n")
    _run(tmp_path, [
        {"user": "I need to verify my membership", "expect": {"scenario": "verify_member"}},
        {"user": "GM4821", "expect": {"scenario": "verify_member"}},
        {"user": "SW1A 2AA", "expect": {"tool_calls": ["find_member"], "response_not_contains": "Ask for",
                                        "response_contains": "anything else"}},
    ], agent)


def test_a_value_in_the_opening_message_is_kept_for_the_flow_it_calls(tmp_path):
    """The member number given with the request is the called identification's: it is not asked again."""
    _run(tmp_path, [
        {"user": "I want to freeze my membership, my member number is GM4821",
         "expect": {"scenario": "verify_member", "response_contains": "postcode", "response_not_contains": "member number"}},
        {"user": "SW1A 2AA", "expect": {"scenario": "freeze", "step": "ask_length",
                                        "tool_calls": [{"find_member": {"member_id": "GM4821", "postcode": "SW1A 2AA"}}]}},
    ])
