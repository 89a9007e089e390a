""""Save as test" on a real `focal serve`: a conversation played through the API, saved from the playground API and
run with `focal test`'s runner passes; its expectations pin outcomes (tool calls with their arguments, violations,
blocked tools, a stable part of an answer in the agent's words) and rules by inclusion, so the saved test still
passes when retrieval brings another rule in."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from focal.cli.conversation_tests import format_report, run_suite
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps
from test_playground_api import get
from test_playground_marks_and_flow import ADMIN_A, API, RETAIL, _serve, say

MESSAGES = ("I want a refund for my order", "It's A1002", "I want a refund for order A1001", "How long does shipping take?")
# A rule the recorded session never saw: a retrieval change for the last turn.
NEW_RULE = {"id": "shipping_apology", "condition_text": "The customer asks how long delivery or shipping takes",
            "examples": ["How long does shipping take?"],
            "action_text": "Apologise that shipping is slower this season.", "priority": 1,
            "response_template": "Sorry that shipping is a little slower this season."}


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("saved-test")
    with _serve([RETAIL], folder / "focal.db") as url:
        say(url, "retail", "pg-save", "c-100", *MESSAGES)
        status, doc, _ = get(url, f"{API}/agents/retail/sessions/pg-save/test", ADMIN_A)
    assert status == 200, doc
    suite = folder / doc["items"]["file_name"]
    suite.write_text(doc["items"]["yaml"], encoding="utf-8")
    return suite


def _turns(suite: Path) -> list[dict]:
    [conversation] = yaml.safe_load(suite.read_text(encoding="utf-8"))["conversations"]
    assert [t["user"] for t in conversation["turns"]] == list(MESSAGES)
    return conversation["turns"]


def test_the_saved_session_passes_with_focal_test(saved):
    report = run_suite(RETAIL, saved)
    assert report.conversations and report.passed, "\n" + format_report(report)


def test_rules_are_expected_by_inclusion_and_tools_with_their_arguments(saved):
    first, second, third, fourth = (t["expect"] for t in _turns(saved))
    assert not [e for e in (first, second, third, fourth) if "matched_rules" in e]  # no exact rule list
    assert "shipping_times" in fourth["matched_rules_include"]
    assert second["tool_calls"] == [{"lookup_order": {"order_id": "A1002"}}, {"check_refund_eligibility": {"order_id": "A1002"}}]
    assert second["violations"] == ["refund_cap"] and second["blocked_tools"] == [] and second["regenerations"] == 1
    assert third["tool_calls"] == [{"lookup_order": {"order_id": "A1001"}}, {"check_refund_eligibility": {"order_id": "A1001"}}]
    assert first["tool_calls"] == []


def test_an_answer_in_the_agents_words_is_pinned_by_a_stable_part_of_it(saved):
    first, second, third, _ = (t["expect"] for t in _turns(saved))
    assert first["response_contains"].startswith("Sure, I can help with a refund.")  # the slot's prompt
    assert second["response_contains"].startswith("Refunds above $50 need a review")  # the violated rule's text
    assert third["response_contains"] == "to your original payment method. Shall I go ahead?"  # no value of the turn
    assert "$30" not in third["response_contains"] and "A1001" not in third["response_contains"]


def test_the_saved_test_still_passes_when_retrieval_brings_in_another_rule(saved, tmp_path):
    folder = tmp_path / "retail"
    shutil.copytree(RETAIL.parent, folder)
    raw = yaml.safe_load((folder / "agent.yaml").read_text(encoding="utf-8"))
    raw["rules"].append(NEW_RULE)
    (folder / "agent.yaml").write_text(yaml.safe_dump(raw, sort_keys=False, allow_unicode=True), encoding="utf-8")
    runner = LocalRunner(local_deps(folder / "agent.yaml", tmp_path / "focal.db"))
    last = runner.turn(TurnRequest(tenant_id="local", agent_id="retail", session_id="s", customer_id="c-100",
                                   turn_id="t1", message=MESSAGES[-1]))
    assert NEW_RULE["id"] in last.matched_rules  # retrieval did change for this turn

    report = run_suite(folder / "agent.yaml", saved)
    assert report.conversations and report.passed, "\n" + format_report(report)
