"""An offer whose first draft was blocked for its wording stays open when the regenerated draft puts the same
offer (a question showing every value of the confirmation prompt); one that shows another value, leaves one
out or asks nothing is withdrawn, so no "yes" runs an action the customer was not shown (newcomer finding: a
compliant "Shall I go ahead?" after a judge's block could not be answered)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from focal.cli.conversation_tests import format_report, run_suite
from test_flow_order_corrections import AGENT, TOOLS

RULES = """
rules:
  - id: kind_tone
    condition_text: The member is talking about an injury or illness
    action_text: Wish the member well before anything else.
    scope: GLOBAL
    is_hard_constraint: true
    subjective: true
    fallback_text: I hope you feel better soon. A colleague will call you about the freeze today.
"""
BLOCKED = {"verdicts": [{"rule_id": "kind_tone", "compliant": False, "reason": "no good wishes"}]}
PASSED = {"verdicts": [{"rule_id": "kind_tone", "compliant": True}]}
FIRST = "I'll freeze your membership for a month (broke my ankle). Shall I go ahead?"


def _run(tmp_path: Path, second_draft: str, after_yes: dict) -> None:
    (tmp_path / "agent.yaml").write_text(AGENT + RULES)
    (tmp_path / "tools.py").write_text(TOOLS)
    turns = [
        {"user": "Pause my gym membership for a month"},
        {"user": "broke my ankle", "model": {"generate": [FIRST, second_draft],
                                             "judge": [BLOCKED, PASSED]},
         "expect": {"violations": ["kind_tone"], "regenerations": 1, "fallback_used": False}},
        {"user": "yes", "expect": after_yes},
    ]
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": "offer", "turns": turns}]}))
    report = run_suite(tmp_path / "agent.yaml", suite)
    assert report.conversations and report.passed, "\n" + format_report(report)


def test_the_same_offer_in_kinder_words_can_be_answered(tmp_path):
    _run(tmp_path, "Sorry to hear that, get well soon! I'll freeze your membership for a Month (broke my ankle). "
                   "Shall I go ahead?", {"tool_calls": ["freeze_membership"], "step": "done"})


@pytest.mark.parametrize("second", [
    "Get well soon! I'll freeze your membership for a week (broke my ankle). Shall I go ahead?",  # another value
    "Get well soon! I'll freeze your membership. Shall I go ahead?",                               # values left out
    "Get well soon! Your membership freeze for a month (broke my ankle) is being looked at.",     # asks nothing
])
def test_a_draft_that_does_not_show_the_same_offer_withdraws_it(tmp_path, second):
    # the yes answers no open question and runs nothing; the flow is not dropped, it waits at the withdrawn offer
    _run(tmp_path, second, {"tool_calls": [], "blocked_tools": [], "scenario": "freeze"})
