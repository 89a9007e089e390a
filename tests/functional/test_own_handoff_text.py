"""An agent's own words for a hand-off stand in for the engine's notice: a matched rule whose examples ask for a
person ("Can I talk to a real person?") says when the team picks the conversation up, and "I'll connect you with a
member of our team" after it would announce the same hand-off twice (the retail demo said both). A rule on another
subject keeps the notice after its text (tests/functional/test_handoff_says_its_safety_text.py)."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

AGENT = """
id: bikes_desk
name: Repair desk
profile_field_definitions:
  - {field_name: ticket, field_type: string, description: The repair ticket, sources: [message],
     validation_rules: ["len(value) == 6"]}
scenarios:
  - id: repair_status
    name: Repair status
    entry_examples: [Is my bike repaired yet, Where is my repair, Check my repair ticket]
    entry_step_id: ask
    steps:
      - id: ask
        slots: [{name: ticket, prompt: "What is your six-character repair ticket?"}]
rules:
  - id: staff_hours
    condition_text: The customer asks to speak with someone from the workshop
    examples: ["Can I talk to a real person?", "Put me through to one of your mechanics", "I'd rather speak to staff"]
    action_text: Say that a mechanic takes the conversation over and when.
    response_template: Sure, one of our mechanics will take this conversation over between 9am and 6pm on workdays.
"""
NOTICE = "connect you with a member"
OWN = "one of our mechanics will take this conversation over"


def test_the_agents_own_handoff_text_is_said_without_the_engines_notice(tmp_path: Path):
    passes(tmp_path, AGENT, "", [
        {"user": "I want to talk to a human", "expect": {"execution_path": "escalate", "response_contains": OWN,
                                                       "response_not_contains": NOTICE}},
    ])


def test_inside_a_flow_the_own_text_also_stands_in_for_the_notice(tmp_path: Path):
    passes(tmp_path, AGENT, "", [
        {"user": "Is my bike repaired yet?", "expect": {"step": "ask"}},
        {"user": "Can I talk to a real person instead?",
         "expect": {"execution_path": "escalate", "response_contains": OWN, "response_not_contains": NOTICE}},
    ])


def test_a_request_for_one_of_the_businesss_own_people_is_a_request_for_a_person(tmp_path: Path):
    # "mechanics" names the desk's people in its own hand-off example ("Put me through to one of your mechanics"):
    # asked for in other words, inside the flow, it hands over as the generic words do (focal.sensing.staff_words)
    passes(tmp_path, AGENT, "", [
        {"user": "Is my bike repaired yet?", "expect": {"step": "ask"}},
        {"user": "Could I speak to one of the mechanics please?",
         "expect": {"execution_path": "escalate", "response_contains": OWN, "response_not_contains": NOTICE}},
    ])


def test_a_question_about_the_businesss_people_is_no_request_for_one(tmp_path: Path):
    passes(tmp_path, AGENT, "", [
        {"user": "Is my bike repaired yet?", "expect": {"step": "ask"}},
        {"user": "Are your mechanics certified?", "expect": {"execution_path": "respond", "step": "ask"}},
    ])
