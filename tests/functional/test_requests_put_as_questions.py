"""A request put as a question starts its flow; a question about the policy stays the rule's. Found by the gym desk a
newcomer wrote (session 13, tests/data/newcomer_gym): "can I pause my membership?" was answered with the freeze
policy (its rule's example "How long can I pause my membership?" scored above the freeze flow) and no freeze started.
Permission asked to act on one's own thing is a request (focal.sensing.inquiry); a question that opens with its
question word, or asks only in general, asks to know."""

from __future__ import annotations

from pathlib import Path

import pytest
from written_agent import passes

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_gym"
AGENT, TOOLS = (DESK / "agent.yaml").read_text(), (DESK / "tools.py").read_text()
STARTS_VERIFICATION = {"scenario": "verify_identity", "response_contains": "member number", "tool_calls": []}


@pytest.mark.parametrize("message", [
    "can I pause my membership?",
    "I hurt my knee skiing and can't train, can I pause my membership?",
])
def test_permission_to_act_on_ones_own_membership_starts_the_flow(tmp_path: Path, message: str):
    passes(tmp_path, AGENT, TOOLS, [{"user": message, "expect": STARTS_VERIFICATION}])


@pytest.mark.parametrize(("message", "rule"), [
    ("what is the notice period if I cancel?", "notice_period"),
    ("How long can I pause my membership?", "freeze_policy"),
    ("Can I bring a friend to the gym?", "guest_passes"),
])
def test_a_question_about_the_policy_stays_the_rules(tmp_path: Path, message: str, rule: str):
    passes(tmp_path, AGENT, TOOLS, [{"user": message, "expect": {"scenario": None, "matched_rules_include": [rule],
                                                                 "tool_calls": []}}])
