"""What a conversation test reports for a turn that misses its expectations (focal.cli.conversation_tests.check_turn,
focal.cli.tool_expect): the exact 'expected X, got Y' lines, in the order the report prints them."""

from __future__ import annotations

from typing import Any

from focal.cli.conversation_tests import EXPECT_KEYS, check_turn
from focal.cli.tool_expect import tool_calls_failures
from focal.cli.turn_checks import CHECKS
from focal.models.turn import TurnResult


def result(**changes: Any) -> TurnResult:
    fields: dict[str, Any] = dict(
        success=True, turn_id="t", session_id="s", response="Your booking B-17 is confirmed.", execution_path="respond",
        confidence=0.9, intent={"label": "booking", "confidence": 0.9, "fast_path": True},
        scenario={"id": "booking", "step_id": "confirm"}, matched_rules=["greet", "hours"],
        enforcement={"checked": [], "violations": [{"rule_id": "cap"}, {"rule_id": "cap"}, {"rule_id": "tone"}],
                     "regenerations": 1, "fallback_used": True, "unverified": ["tone", "care"]},
        commands=[{"name": "StartFlow"}, {"name": "SetSlot"}],
        tool_calls=[{"tool_id": "look_up", "status": "ok", "arguments": {"ref": "B-17"}},
                    {"tool_id": "pay_back", "status": "blocked"},
                    {"tool_id": "pay_back", "status": "error", "error": "timeout"}],
        model_calls=2, cost_usd=0.0, timings_ms={}, suggested_questions=["When do you open?"], error=None,
        approval_state="none",
    )
    return TurnResult(**{**fields, **changes})


MET = {
    "execution_path": "respond", "approval_state": "none", "intent": "booking", "scenario": "booking", "step": "confirm",
    "matched_rules": ["hours", "greet"], "matched_rules_include": ["greet"], "matched_rules_exclude": ["other"],
    "violations": ["tone"], "fallback_used": True, "regenerations": 1, "response_contains": ["b-17", "CONFIRMED"],
    "response_not_contains": "refused", "suggested_questions": ["when do you OPEN?"], "commands": ["SetSlot", "StartFlow"],
    "unverified": ["care", "tone"], "model_calls": 2, "fast_path": True, "tool_calls": [{"look_up": {"ref": "b-17"}}],
    "blocked_tools": ["pay_back"],
}


def test_a_turn_that_meets_every_expectation_has_no_failure() -> None:
    assert check_turn(MET, result()) == []
    assert check_turn({}, result()) == []


def test_each_missed_expectation_is_one_line_in_a_fixed_order() -> None:
    expect = {  # written in another order than the report's: the report's order is fixed
        "blocked_tools": [], "tool_calls": ["send_note"], "fast_path": False, "model_calls": 0, "unverified": ["care"],
        "commands": ["Cancel"], "suggested_questions": True, "response_not_contains": ["booking", "B-17"],
        "response_contains": "cancelled", "regenerations": 0, "fallback_used": False, "violations": [],
        "matched_rules_exclude": ["hours", "greet"], "matched_rules_include": ["late", "greet"], "matched_rules": ["late"],
        "step": "pay", "scenario": None, "intent": "cancel", "approval_state": "approved", "execution_path": "clarify",
    }
    assert check_turn(expect, result(suggested_questions=[])) == [
        "expected execution_path 'clarify', got 'respond'",
        "expected approval_state 'approved', got 'none'",
        "expected intent 'cancel', got 'booking'",
        "expected scenario None, got 'booking'",
        "expected step 'pay', got 'confirm'",
        "expected matched rules ['late'], got ['greet', 'hours']",
        "expected matched rules to include ['late'], got ['greet', 'hours']",
        "expected matched rules to exclude ['hours', 'greet'], got ['greet', 'hours']",
        "expected no violations, got ['cap', 'tone']",
        "expected fallback_used False, got True",
        "expected regenerations 0, got 1",
        "expected the response to contain 'cancelled', got 'Your booking B-17 is confirmed.'",
        "expected the response not to contain 'booking', got 'Your booking B-17 is confirmed.'",
        "expected the response not to contain 'B-17', got 'Your booking B-17 is confirmed.'",
        "expected suggested questions, got none",
        "expected commands ['Cancel'], got ['SetSlot', 'StartFlow']",
        "expected unverified ['care'], got ['care', 'tone']",
        "expected 0 model call(s), got 2",
        "expected fast_path False, got True",
        "expected tool calls ['send_note'] with status ok, got ['look_up (ok)', 'pay_back (blocked)', "
        "'pay_back (error: timeout)']",
        "expected blocked tools [], got ['pay_back']",
    ]


def test_violations_suggestions_and_blocked_tools_in_their_other_shapes() -> None:
    quiet = result(enforcement={}, suggested_questions=["When do you open?"], tool_calls=[])
    assert check_turn({"violations": ["cap", "tone"], "suggested_questions": False, "blocked_tools": ["pay_back"],
                       "unverified": ["tone"]}, quiet) == [
        "expected violations to include ['cap', 'tone'], got none",
        "expected no suggested questions, got ['When do you open?']",
        "expected unverified ['tone'], got []",
        "expected blocked tools ['pay_back'], got []",
    ]
    assert check_turn({"violations": ["late"], "suggested_questions": ["Can I pay later?", "when do you open?"]},
                      result()) == [
        "expected violations to include ['late'], got ['cap', 'tone']",
        "expected suggested questions to include ['Can I pay later?'], got ['When do you open?']",
    ]
    assert check_turn({"scenario": None, "step": None}, result(scenario=None)) == []


def test_the_response_quoted_under_a_failure_is_cut_at_300_characters() -> None:
    long = "x" * 301
    assert check_turn({"response_contains": "y"}, result(response=long)) == [
        f"expected the response to contain 'y', got '{'x' * 300}…'"]


def test_tool_call_expectations() -> None:
    calls = [{"tool_id": "look_up", "status": "ok", "arguments": {"ref": "B-17", "days": 30}},
             {"tool_id": "look_up", "status": "ok", "arguments": {"ref": "B-18"}},
             {"tool_id": "pay_back", "status": "error", "error": "declined"},
             {"tool_id": "note", "status": "ok"}]
    assert tool_calls_failures([], []) == []
    assert tool_calls_failures([], calls[2:]) == ["expected no tool calls, got ['pay_back (error: declined)', 'note (ok)']"]
    assert tool_calls_failures(["look_up", {"look_up": {"days": "30.00", "ref": " b-17 "}}, "note"], calls) == []
    assert tool_calls_failures(["pay_back", "send"], []) == ["expected tool calls ['pay_back', 'send'] with status ok, got none"]
    assert tool_calls_failures([{"look_up": {"ref": "B-19"}}, {"pay_back": {"sum": 5}}, {"note": {"to": "me"}}], calls) == [
        "expected tool calls ['pay_back'] with status ok, got ['look_up (ok)', 'look_up (ok)', "
        "'pay_back (error: declined)', 'note (ok)']",
        "expected look_up with arguments {'ref': 'B-19'}, got [{'ref': 'B-17', 'days': 30}, {'ref': 'B-18'}]",
        "expected note with arguments {'to': 'me'}, got [{}]",
    ]
    assert tool_calls_failures([{"look_up": {"days": True}}], calls[:1]) == [
        "expected look_up with arguments {'days': True}, got [{'ref': 'B-17', 'days': 30}]"]


def test_every_expectation_key_a_suite_may_use_has_its_check() -> None:
    assert sorted(CHECKS) == sorted(EXPECT_KEYS)
