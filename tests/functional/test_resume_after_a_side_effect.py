"""A flow resumed after a side effect ran in the flow that interrupted it reads its facts again: what its tools
read before the pause may no longer be true (red team: a trip downgraded to basic economy in a digression, then
the paused cancellation resumed with the restored "business" cabin and its guard passed). A gym written here:
booking a class needs a premium plan; a digression downgrades the plan before the paused booking is confirmed."""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.cli.conversation_tests import format_report, run_suite

AGENT = """
id: gym
name: Gym desk
profile_field_definitions:
  - {field_name: member_id, field_type: id, pattern: 'M-\\d+', sources: [message]}
  - {field_name: plan, field_type: string, sources: [tool]}
  - {field_name: booked, field_type: string, sources: [tool]}
  - {field_name: changed, field_type: string, sources: [tool]}
tools:
  - {id: lookup_plan, entrypoint: 'tools.py:lookup_plan', input: {member_id: {type: id}}, output: {plan: plan}}
  - {id: book_class, entrypoint: 'tools.py:book_class', input: {member_id: {type: id}}, output: {ref: booked},
     side_effect: true}
  - {id: downgrade, entrypoint: 'tools.py:downgrade', input: {member_id: {type: id}}, output: {ref: changed},
     side_effect: true}
rules:
  - id: premium_only
    condition_text: booking a class
    action_text: Only premium members book classes.
    is_hard_constraint: true
    enforcement_expression: plan == 'premium'
    guarded_tool_ids: [book_class]
    fallback_text: Classes are for premium members.
scenarios:
  - id: book
    name: Book a class
    entry_examples: [book a spin class, I want to book a class]
    entry_step_id: ask_member
    steps:
      - id: ask_member
        slots: [{name: member_id, type: id, prompt: "Your member id?"}]
        action: [lookup_plan]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "Book a class for {member_id} ({plan} plan)?"
        action: [book_class]
        transitions: [{target: done}]
      - {id: done, response_template: "Booked ({booked})."}
  - id: change
    name: Downgrade a plan
    entry_examples: [downgrade my plan, switch me to the basic plan]
    entry_step_id: ask_member
    steps:
      - id: ask_member
        slots: [{name: member_id, type: id, prompt: "Your member id?"}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "Downgrade {member_id} to basic?"
        action: [downgrade]
        transitions: [{target: done}]
      - {id: done, response_template: "Downgraded ({changed})."}
"""
TOOLS = """
PLANS = {"M-7": "premium"}


def lookup_plan(member_id):
    return {"plan": PLANS.get(member_id, "none")}


def book_class(member_id):
    return {"ref": "B-1"}


def downgrade(member_id):
    PLANS[member_id] = "basic"
    return {"ref": "D-1"}
"""


def test_a_resumed_flow_reads_its_facts_again_after_a_side_effect(tmp_path: Path):
    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": "stale", "turns": [
        {"user": "I want to book a class", "expect": {"step": "ask_member"}},
        {"user": "M-7", "expect": {"step": "confirm", "response_contains": "premium"}},
        # the member id given to the booking is kept, and shown before the downgrade acts (dialogue.carried_slots)
        {"user": "actually first switch me to the basic plan",
         "expect": {"scenario": "change", "step": "confirm", "response_contains": "Downgrade M-7 to basic?"}},
        {"user": "yes", "expect": {"tool_calls": ["downgrade"]}},
        {"user": "yes", "expect": {"scenario": "book", "step": "confirm", "response_contains": "basic plan"}},
        {"user": "yes", "expect": {"blocked_tools": ["book_class"]}},
    ]}]}), encoding="utf-8")
    report = run_suite(tmp_path / "agent.yaml", suite)
    assert report.conversations and report.passed, "\n" + format_report(report)
