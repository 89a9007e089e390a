"""`focal validate` warnings on soft rules: one that runs a side-effecting tool when it matches, and one whose
action offers what a hard rule or an action guard limits (compared through the variables both touch)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from focal.config.gate import validate_file

GYM = """\
id: gym
name: Gym
profile_field_definitions:
  - {field_name: member_id, field_type: id}
  - field_name: fee_waived
    field_type: boolean
    extraction_hints: [waive, waived, waiver]
    sources: [response]
    default: false
  - field_name: discount_percent
    field_type: percentage
    extraction_hints: [discount, "off"]
    sources: [response]
    default: 0
  - {field_name: manager_approved, field_type: boolean, sources: [tool]}
tools:
  - id: waive_joining_fee
    entrypoint: 'tools.py:waive_joining_fee'
    input: {member_id: {type: id}}
    side_effect: true
  - id: look_up_member
    entrypoint: 'tools.py:look_up_member'
    input: {member_id: {type: id}}
    output: {approved: manager_approved}
rules:
  - id: no_fee_waiver
    condition_text: the customer asks about the joining fee
    action_text: Never waive the joining fee.
    is_hard_constraint: true
    enforcement_expression: not fee_waived
  - id: discount_cap
    condition_text: the customer asks for a discount
    action_text: Never offer more than 10% off.
    is_hard_constraint: true
    enforcement_expression: discount_percent <= 10
  - id: waiver_needs_manager
    condition_text: a fee waiver is about to be made
    action_text: Only a manager may waive a fee.
    is_hard_constraint: true
    guarded_tool_ids: [waive_joining_fee]
    enforcement_expression: manager_approved
"""
TOOLS = "def waive_joining_fee(member_id):\n    return {}\n\ndef look_up_member(member_id):\n    return {}\n"


def warnings(tmp_path: Path, rules: str) -> list[str]:
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    path = tmp_path / "agent.yaml"
    path.write_text(GYM + textwrap.indent(textwrap.dedent(rules), "  "), encoding="utf-8")
    result = validate_file(path)
    assert result.problems == [], [str(p) for p in result.problems]
    return [f"{w.path}: {w.message}" for w in result.warnings if w.path.startswith("rules[3]")]


def test_a_soft_rule_that_runs_a_side_effecting_tool_is_a_warning(tmp_path):
    found = warnings(tmp_path, """\
        - id: students
          condition_text: a student asks to join
          action_text: Welcome them.
          attached_tool_ids: [look_up_member, waive_joining_fee]
    """)
    assert ("rules[3].attached_tool_ids[1]: soft rule 'students' attaches 'waive_joining_fee', which has side effects "
            "(side_effect: true): a soft rule is matched by how close a message is to its condition_text, so the "
            "tool runs whenever a message reads like it, with no step that asks the customer first; put "
            "'waive_joining_fee' in a scenario step's action with requires_confirmation: true") in found
    assert not any("attached_tool_ids[0]" in w for w in found)  # a read-only lookup is fine


def offers(rule: str, read: str, expression: str) -> str:
    return (f"rules[3].action_text: soft rule 'students' offers what hard rule '{rule}' forbids: the engine reads "
            f"this action_text, as it reads an answer, as stating {read}, which fails '{expression}'; an answer that "
            "follows the soft rule is blocked. Say in the soft rule what the hard rule allows, or scope the two apart")


def test_a_soft_rule_whose_text_offers_what_a_hard_rule_forbids_is_a_warning(tmp_path):
    assert warnings(tmp_path, """\
        - id: students
          condition_text: a student asks about the joining fee
          action_text: Waive the joining fee for students.
    """) == [  # the engine reads a waived fee as waived, and as 100% off
        offers("no_fee_waiver", "fee_waived = true", "not fee_waived"),
        offers("discount_cap", "discount_percent = 100", "discount_percent <= 10"),
    ]
    assert warnings(tmp_path, """\
        - id: students
          condition_text: a student asks for a discount
          action_text: Offer students 20% off.
    """) == [offers("discount_cap", "discount_percent = 20", "discount_percent <= 10")]


def test_a_soft_rule_that_attaches_a_guarded_tool_is_a_warning(tmp_path):
    found = warnings(tmp_path, """\
        - id: students
          condition_text: a student asks about the joining fee
          action_text: Tell them about student rates.
          attached_tool_ids: [waive_joining_fee]
    """)
    assert ("rules[3].attached_tool_ids[0]: soft rule 'students' runs 'waive_joining_fee', which action guard "
            "'waiver_needs_manager' limits ('manager_approved'): each time the soft rule matches, the call is "
            "blocked unless the guard holds; run the tool from a scenario step whose flow gathers what the guard "
            "reads") in found


def test_a_soft_rule_within_the_limit_or_on_other_things_is_fine(tmp_path):
    assert warnings(tmp_path, """\
        - id: students
          condition_text: a student asks for a discount
          action_text: Offer students 10% off and explain that the joining fee applies to everyone.
    """) == []


def test_soft_and_hard_rules_of_different_scenarios_never_meet(tmp_path):
    text = GYM.replace("    enforcement_expression: not fee_waived\n",
                       "    enforcement_expression: not fee_waived\n    scope: SCENARIO\n    scope_id: join\n")
    text = text.replace("rules:\n", "scenarios:\n"
                        "  - {id: join, name: Join, entry_examples: [I want to join], entry_step_id: s, steps: [{id: s}]}\n"
                        "  - {id: cancel, name: Cancel, entry_examples: [I want to cancel], entry_step_id: s, steps: [{id: s}]}\n"
                        "rules:\n", 1)
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    path = tmp_path / "agent.yaml"
    path.write_text(text + textwrap.indent(textwrap.dedent("""\
        - id: leavers
          condition_text: a member wants to cancel
          action_text: Waive the cancellation fee.
          scope: SCENARIO
          scope_id: cancel
    """), "  "), encoding="utf-8")
    result = validate_file(path)
    assert result.problems == [], [str(p) for p in result.problems]
    assert not [w for w in result.warnings if "no_fee_waiver" in w.message]
