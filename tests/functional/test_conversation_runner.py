"""The conversation-test runner itself, on small inline suites against the retail agent."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from focal.cli.conversation_tests import SuiteError, check_turn, format_report, run_suite
from focal.models.turn import TurnResult

AGENT = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


@pytest.fixture()
def suite(tmp_path: Path):
    def write(text: str) -> Path:
        path = tmp_path / "tests.yaml"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


def test_a_passing_suite_passes(suite) -> None:
    path = suite("""
        conversations:
          - name: hello
            turns:
              - user: Hello!
                expect: {execution_path: respond, scenario: null, matched_rules: [], tool_calls: [], violations: []}
          - name: status
            customer_id: c-200
            turns:
              - user: Where is my order A1003?
                expect:
                  intent: order_status
                  scenario: order_status
                  step: report_status
                  tool_calls: [lookup_order]
                  response_contains: [running shoes, SHIPPED]
                  response_not_contains: refund
                  regenerations: 0
                  fallback_used: false
    """)
    report = run_suite(AGENT, path)
    assert report.passed, format_report(report)
    assert [c.name for c in report.conversations] == ["hello", "status"]
    assert all(c.passed and not c.failures for c in report.conversations)
    text = format_report(report)
    assert "PASS  hello" in text and "2 of 2 conversation(s) passed" in text
    assert report.to_dict()["passed"] is True


def test_each_conversation_has_its_own_session(suite) -> None:
    # The second conversation does not continue the flow the first one started.
    path = suite("""
        conversations:
          - name: starts a refund
            turns:
              - user: I want a refund for my order
                expect: {scenario: refund, step: collect_order}
          - name: starts fresh
            customer_id: c-100
            turns:
              - user: A1001
                expect: {scenario: null, tool_calls: []}
    """)
    report = run_suite(AGENT, path)
    assert report.passed, format_report(report)


def test_a_wrong_expectation_fails_with_expected_and_got(suite) -> None:
    path = suite("""
        conversations:
          - name: wrong
            customer_id: c-200
            turns:
              - user: Hello!
              - user: Where is my order A1003?
                expect:
                  execution_path: escalate
                  scenario: refund
                  step: collect_order
                  tool_calls: [issue_refund]
                  response_contains: delivered
                  response_not_contains: Running shoes
                  matched_rules_include: [shipping_times]
                  violations: [refund_cap]
          - name: right
            customer_id: c-200
            turns:
              - user: Hello!
                expect: {execution_path: respond}
    """)
    report = run_suite(AGENT, path)
    assert not report.passed
    wrong, right = report.conversations
    assert right.passed and not wrong.passed
    assert wrong.turns[0].passed and not wrong.turns[1].passed
    failures = wrong.turns[1].failures
    assert "expected execution_path 'escalate', got 'respond'" in failures
    assert "expected scenario 'refund', got 'order_status'" in failures
    assert "expected step 'collect_order', got 'report_status'" in failures
    assert "expected tool calls ['issue_refund'] with status ok, got ['lookup_order (ok)']" in failures
    assert any(f.startswith("expected the response to contain 'delivered', got 'Order A1003") for f in failures)
    assert any(f.startswith("expected the response not to contain 'Running shoes'") for f in failures)
    assert "expected matched rules to include ['shipping_times'], got []" in failures
    assert "expected violations to include ['refund_cap'], got none" in failures
    assert len(failures) == 8
    assert "turn 2: expected scenario 'refund', got 'order_status'" in wrong.failures
    text = format_report(report)
    assert "FAIL  wrong" in text and "PASS  right" in text
    assert "turn 2 > Where is my order A1003?" in text
    assert "✗ expected execution_path 'escalate', got 'respond'" in text
    assert "turn 1 >" not in text  # passing turns are not listed
    assert "1 of 2 conversation(s) passed" in text and "FAILED: wrong" in text


def test_empty_lists_mean_none(suite) -> None:
    path = suite("""
        conversations:
          - name: tools ran and a rule matched
            customer_id: c-200
            turns:
              - user: Where is my order A1003?
                expect: {tool_calls: []}
              - user: how long does shipping take?
                expect: {matched_rules: []}
    """)
    report = run_suite(AGENT, path)
    first, second = report.conversations[0].turns
    assert first.failures == ["expected no tool calls, got ['lookup_order (ok)']"]
    assert second.failures == ["expected matched rules [], got ['shipping_times']"]


def test_unknown_expect_key_is_reported_with_file_conversation_and_key(suite) -> None:
    path = suite("""
        conversations:
          - name: fine
            turns:
              - user: Hello!
          - name: typo
            turns:
              - user: Hello!
                expect: {execution_path: respond, respnse_contains: hello}
    """)
    with pytest.raises(SuiteError) as caught:
        run_suite(AGENT, path)
    message = str(caught.value)
    assert str(path) in message
    assert caught.value.problems == [
        f"{path}:9: unknown expectation 'respnse_contains' (did you mean 'response_contains'?), "
        "in conversation 'typo' turn 1"
    ]


def test_every_suite_problem_is_listed_before_anything_runs(suite) -> None:
    path = suite("""
        conversations:
          - name: many problems
            profile: {is_vip: true}
            turns:
              - user: yes
              - user: Hello!
                model: {planner: ["x"], generate: [42]}
                expect:
                  execution_path: resond
                  scenario: refunds
                  matched_rules_include: [no_such_rule]
                  tool_calls: refund
                  regenerations: "1"
          - name: many problems
            turns: []
    """)
    with pytest.raises(SuiteError) as caught:
        run_suite(AGENT, path)
    problems = "\n".join(caught.value.problems)
    for fragment in (
        "profile field 'is_vip' is not declared",
        "each turn needs 'user', the customer's message as a string, got True (quote it",
        "unknown model purpose 'planner'",
        "each scripted generate output must be a mapping or a string, got 42",
        "expectation 'execution_path' must be one of",
        "unknown scenario 'refunds' in 'scenario'",
        "unknown rule 'no_such_rule' in 'matched_rules_include'",
        "expectation 'tool_calls' must be a list of tool ids",
        "expectation 'regenerations' must be a whole number",
        "the name is used twice, in conversation 'many problems'",
        "needs a non-empty list 'turns', in conversation 'many problems'",
    ):
        assert fragment in problems, (fragment, problems)


def test_unreadable_and_malformed_suites(tmp_path: Path, suite) -> None:
    with pytest.raises(SuiteError, match="cannot read file"):
        run_suite(AGENT, tmp_path / "missing.yaml")
    with pytest.raises(SuiteError, match=r"tests.yaml:\d+: YAML syntax error: "):
        run_suite(AGENT, suite("conversations:\n  - name: [unclosed\n"))
    with pytest.raises(SuiteError, match="non-empty list 'conversations'"):
        run_suite(AGENT, suite("tests: []\n"))


def test_unconsumed_scripted_output_fails_the_turn(suite) -> None:
    # A greeting needs no judge (the retail agent has no subjective rule): the scripted verdict is
    # never used, which means the test does not test what it says.
    verdict = json.dumps({"verdicts": [{"rule_id": "refund_cap", "compliant": True}]})
    path = suite(f"""
        conversations:
          - name: unused judge
            turns:
              - user: Hello!
                model:
                  judge: ['{verdict}']
                expect: {{execution_path: respond}}
              - user: hi there
                expect: {{execution_path: respond}}
    """)
    report = run_suite(AGENT, path)
    conv = report.conversations[0]
    assert not conv.passed
    assert conv.turns[0].failures == ["scripted judge output(s) not consumed: 1 left"]
    assert conv.turns[1].passed  # the leftover was cleared, not carried into the next turn
    assert "✗ scripted judge output(s) not consumed: 1 left" in format_report(report)


def test_scripted_outputs_belong_to_their_turn(suite) -> None:
    # Two drafts scripted, one used (the first passes enforcement): the turn fails for the unused
    # one, and the next turn is answered offline rather than with the leftover draft.
    path = suite("""
        conversations:
          - name: extra draft
            turns:
              - user: how long does shipping take?
                model:
                  generate:
                    - Shipping takes 3-5 business days.
                    - LEFTOVER DRAFT
                expect: {response_contains: 3-5 business days, regenerations: 0}
              - user: how long does shipping take?
                expect: {response_not_contains: LEFTOVER, response_contains: express delivery}
    """)
    report = run_suite(AGENT, path)
    first, second = report.conversations[0].turns
    assert first.failures == ["scripted generate output(s) not consumed: 1 left"]
    assert first.response == "Shipping takes 3-5 business days."
    assert second.passed, second.failures


def test_profile_facts_are_stored_before_the_first_turn(suite) -> None:
    path = suite("""
        conversations:
          - name: premium
            customer_id: c-100
            profile: {is_premium: true}
            turns:
              - user: I want a refund for my order
              - user: It's A1002
                expect: {step: confirm_refund, violations: [], response_contains: "$75.00"}
          - name: not premium
            customer_id: c-100
            turns:
              - user: I want a refund for my order
              - user: It's A1002
                expect: {violations: [refund_cap], response_not_contains: "$75"}
    """)
    report = run_suite(AGENT, path)
    assert report.passed, format_report(report)


def test_check_turn_reports_a_failed_pipeline_and_suggestions() -> None:
    result = TurnResult(
        success=True, turn_id="t", session_id="s", response="Hi", execution_path="clarify", confidence=0.3,
        intent={"label": None, "confidence": 0.3}, scenario=None, matched_rules=[],
        enforcement={"checked": [], "violations": [], "regenerations": 0, "fallback_used": False},
        commands=[], tool_calls=[], model_calls=0, cost_usd=0.0, timings_ms={},
        suggested_questions=["Where is my order?"], error=None,
    )
    assert check_turn({"suggested_questions": True, "intent": None, "scenario": None}, result) == []
    assert check_turn({"suggested_questions": False}, result) == [
        "expected no suggested questions, got ['Where is my order?']"
    ]
    assert check_turn({"suggested_questions": ["How do I get a refund?"]}, result) == [
        "expected suggested questions to include ['How do I get a refund?'], got ['Where is my order?']"
    ]


def test_an_unquoted_date_or_number_as_a_message_says_to_quote_it(suite) -> None:
    path = suite("""
        conversations:
          - name: unquoted
            turns:
              - user: 2025-04-10
              - user: 1200
    """)
    with pytest.raises(SuiteError) as caught:
        run_suite(AGENT, path)
    assert caught.value.problems == [
        f"{path}:5: each turn needs 'user', the customer's message as a string, got "
        "datetime.date(2025, 4, 10) (quote it: YAML reads date values like this one unquoted), in conversation "
        "'unquoted' turn 1",
        f"{path}:6: each turn needs 'user', the customer's message as a string, got "
        "1200 (quote it: YAML reads int values like this one unquoted), in conversation 'unquoted' turn 2",
    ]
