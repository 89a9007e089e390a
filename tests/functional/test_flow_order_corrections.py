"""A changed value for a later step never skips the steps before it, and a yes/no reply is never a free-text
value (newcomer findings: "make it a month pass" jumped past the missing destination to the confirmation;
"yes if it's under $20" became the destination). The agent is written here: a gym's membership freeze, whose
first step asks a free-text reason and whose second a length the opening message may already carry."""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.cli.conversation_tests import format_report, run_suite

AGENT = """
id: gym
name: Gym desk
profile_field_definitions:
  - {field_name: reason, field_type: string, description: Why the member pauses, sources: [message]}
  - {field_name: freeze_length, field_type: enum, description: How long the freeze lasts,
     allowed_values: [week, month, quarter], sources: [message]}
  - {field_name: freeze_ref, field_type: string, description: Reference of the freeze, sources: [tool]}
tools:
  - id: freeze_membership
    kind: python
    entrypoint: tools.py:freeze
    input: {reason: {type: string}, freeze_length: {type: enum}}
    output: {ref: freeze_ref}
    side_effect: true
scenarios:
  - id: freeze
    name: Freeze a membership
    intent_label: freeze
    entry_examples: [I want to freeze my membership, Pause my gym membership for a month, Freeze my plan for a week]
    entry_step_id: ask_reason
    steps:
      - id: ask_reason
        slots: [{name: reason, type: string, prompt: "What is the reason for the pause?"}]
        transitions: [{target: ask_length}]
      - id: ask_length
        slots: [{name: freeze_length, type: enum, prompt: "For a week, a month or a quarter?"}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: I'll freeze your membership for a {freeze_length} ({reason}). Shall I go ahead?
        action: [freeze_membership]
        transitions: [{target: done}]
      - id: done
        response_template: Your membership is frozen (reference {freeze_ref}).
"""
TOOLS = "def freeze(reason, freeze_length):\n    return {'ref': 'FZ-1'}\n"


def _run(tmp_path: Path, turns: list[dict]) -> None:
    (tmp_path / "agent.yaml").write_text(AGENT)
    (tmp_path / "tools.py").write_text(TOOLS)
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": "freeze", "turns": turns}]}))
    report = run_suite(tmp_path / "agent.yaml", suite)
    assert report.conversations and report.passed, "\n" + format_report(report)


def test_changing_a_value_given_early_stays_at_the_step_still_waiting(tmp_path):
    _run(tmp_path, [
        {"user": "Pause my gym membership for a week", "expect": {"step": "ask_reason"}},
        {"user": "actually make it a month", "expect": {"step": "ask_reason", "response_contains": "reason"}},
        {"user": "yes", "expect": {"tool_calls": [], "step": "ask_reason"}},
        {"user": "I broke my ankle", "expect": {"step": "confirm", "response_contains": "for a month"}},
        {"user": "yes", "expect": {"tool_calls": ["freeze_membership"], "step": "done"}},
    ])


def test_a_correction_of_an_earlier_value_still_goes_back_to_its_step(tmp_path):
    _run(tmp_path, [
        {"user": "I want to freeze my membership", "expect": {"step": "ask_reason"}},
        {"user": "travelling for work", "expect": {"step": "ask_length"}},
        {"user": "a week", "expect": {"step": "confirm", "response_contains": "for a week"}},
        {"user": "actually make it a quarter", "expect": {"step": "confirm", "response_contains": "for a quarter",
                                                           "tool_calls": []}},
    ])


def test_a_yes_or_no_reply_is_not_taken_as_a_free_text_value(tmp_path):
    _run(tmp_path, [
        {"user": "I want to freeze my membership", "expect": {"step": "ask_reason"}},
        {"user": "yes if it's free", "expect": {"step": "ask_reason"}},
        {"user": "no idea really", "expect": {"step": "ask_reason"}},
        {"user": "moving house", "expect": {"step": "ask_length"}},
    ])
