"""A question that sits between two flows is answered by the rule that states the answer, not met with "do you mean
A or B?"; one no rule answers still gets the choice, and "yes" takes it. Found by a newcomer's claims desk (session
10, tests/data/newcomer_insurance): "Do I need receipts or photos for my claim?" scores the filing and the status flows
almost equally and was asked "File a claim or Check a claim?" although the agent has a rule for exactly that — the
sensor asked before any rule was looked at, and "Do I need …?" was read as a wish to act, not a question."""

from __future__ import annotations

import re
from pathlib import Path

from written_agent import passes

from focal.sensing.inquiry import asks_for_its_own_sake

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_insurance"
AGENT = (DESK / "agent.yaml").read_text()
TOOLS = (DESK / "tools.py").read_text()
QUESTION = "Do I need receipts or photos for my claim?"


def test_a_question_between_two_flows_is_answered_by_its_rule_and_offers_nothing(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": QUESTION, "expect": {"execution_path": "respond", "matched_rules_include": ["claim_documents"],
                                      "scenario": None, "response_contains": "Photos of the damage"}},
        {"user": "yes", "expect": {"scenario": None, "tool_calls": []}},
    ])


def test_a_question_between_two_flows_that_no_rule_answers_still_offers_the_choice(tmp_path: Path):
    rule = AGENT[AGENT.index("  - id: claim_documents"):AGENT.index("  - id: excess")]
    agent = re.sub(r"      claim_documents: \{[^}]*\}\n", "", AGENT.replace(rule, ""))  # the rule and its translations
    passes(tmp_path, agent, TOOLS, [
        {"user": QUESTION, "expect": {"execution_path": "clarify", "matched_rules": [], "scenario": None,
                                      "response_contains": ["File a claim", "Check a claim"]}},
        {"user": "yes", "expect": {"scenario": "verify", "response_contains": "policy number"}},  # File a claim
    ])


def test_a_wish_asked_about_is_a_question_and_a_wish_stated_is_not():
    assert asks_for_its_own_sake("Do I need receipts or photos for my claim?")
    assert asks_for_its_own_sake("Must we keep the broken TV until someone has seen it?")
    assert not asks_for_its_own_sake("I need to file a claim, can you help?")
    assert not asks_for_its_own_sake("Can you file my claim?")
