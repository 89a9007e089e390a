"""A report a flow hands off at once acts wherever it stands in the message (focal.sensing.handoff_reports). Found by
the gym desk a newcomer wrote (session 13, tests/data/newcomer_gym): "I fell off a treadmill … and hurt my ankle, what
should I put on it?" scored the emergency flow 0.50 as a whole (the question pulls the vector away) and was answered
by the health rule: no emergency text, no person. Each part of the message is scored too, and a flow that hands off at
once is never replaced by a rule's answer; a question with no report in it stays the rule's."""

from __future__ import annotations

from pathlib import Path

import pytest
from written_agent import passes

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_gym"
AGENT, TOOLS = (DESK / "agent.yaml").read_text(), (DESK / "tools.py").read_text()
EMERGENCY = {"execution_path": "escalate", "tool_calls": ["transfer_to_staff"], "response_contains": "112",
             "response_not_contains": ["put ice", "ibuprofen", "bandage", "I can freeze"]}


@pytest.mark.parametrize("message", [
    "I fell off a treadmill at the Riverside club and hurt my ankle, what should I put on it?",
    "Je suis tombé d'un tapis de course au club et je me suis fait mal à la cheville, qu'est-ce que je dois mettre dessus ?",
    "Ich habe mich im Studio an der Hantelbank verletzt, was soll ich jetzt darauf tun?",
])
def test_an_injury_reported_beside_a_question_gets_the_emergency_text_and_a_person(tmp_path: Path, message: str):
    passes(tmp_path, AGENT, TOOLS, [{"user": message, "expect": EMERGENCY}])


def test_a_health_question_without_a_report_stays_the_rules(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [{"user": "My knee hurts, what exercises should I do?", "expect": {
        "matched_rules_include": ["health_questions"], "tool_calls": [], "response_not_contains": "112"}}])


def test_an_old_injury_that_asks_for_a_freeze_is_no_emergency(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [{"user": "I hurt my knee skiing last month and can't train, can I pause my membership?",
                                     "expect": {"tool_calls": [], "response_not_contains": "112"}}])
