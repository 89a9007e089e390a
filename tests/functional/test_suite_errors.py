"""A suite's problems name the file and the line, and the closest known name: 'tests.yaml:LINE: …'."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from focal.cli.conversation_tests import EXPECT_KEYS, SuiteError, load_suite
from focal.cli.suite_expect import EXPECT_CHECKS
from focal.config.loader import load_agent

AGENT = load_agent(Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml")


def problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "tests.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    with pytest.raises(SuiteError) as caught:
        load_suite(path, AGENT)
    prefix = f"{path}:"
    assert all(p.startswith(prefix) for p in caught.value.problems), caught.value.problems
    return [p[len(prefix):] for p in caught.value.problems]


def test_a_misspelt_expectation_names_its_line_and_the_closest_key(tmp_path):
    assert problems(tmp_path, """\
        conversations:
          - name: refund
            turns:
              - user: Hello!
              - user: I want a refund
                expect:
                  scenario: refund
                  tool_call: [lookup_order]
    """) == ["8: unknown expectation 'tool_call' (did you mean 'tool_calls'?), in conversation 'refund' turn 2"]


def test_unknown_ids_of_the_agent_are_named_with_the_closest_one(tmp_path):
    found = problems(tmp_path, """\
        conversations:
          - name: ids
            turns:
              - user: Hello!
                expect:
                  violations: [refund_capp]
                  tool_calls: [lookup_ordr, {issue_refnd: {order_id: A1}}]
                  intent: refund_requst
                  scenario: order_stat
                  step: collect_ordr
                  blocked_tools: [issue_refunds]
                  matched_rules_include: [return_polcy]
                  commands: [StartFlw]
    """)
    where = ", in conversation 'ids' turn 1"
    assert found == [
        "6: unknown rule or output check 'refund_capp' in 'violations' (did you mean 'refund_cap'?)" + where,
        "7: unknown tool 'lookup_ordr' in 'tool_calls' (did you mean 'lookup_order'?)" + where,
        "7: unknown tool 'issue_refnd' in 'tool_calls' (did you mean 'issue_refund'?)" + where,
        "8: unknown intent 'refund_requst' in 'intent' (did you mean 'refund_request'?)" + where,
        "9: unknown scenario 'order_stat' in 'scenario' (did you mean 'order_status'?)" + where,
        "10: unknown step 'collect_ordr' in 'step' (did you mean 'collect_order'?)" + where,
        "11: unknown tool 'issue_refunds' in 'blocked_tools' (did you mean 'issue_refund'?)" + where,
        "12: unknown rule 'return_polcy' in 'matched_rules_include' (did you mean 'return_policy'?)" + where,
        "13: unknown command 'StartFlw' in 'commands' (did you mean 'StartFlow'?)" + where,
    ]


def test_misspelt_keys_of_the_suite_conversations_turns_and_model(tmp_path):
    found = problems(tmp_path, """\
        conversation:
          - name: x
        conversations:
          - name: keys
            custmer_id: c-100
            profile: {is_premum: true}
            turns:
              - usr: Hello!
              - user: hi
                model: {sensr: {detected_intent: refund}}
                expect: {tool_calls: [{lookup_order: {ordr_id: A1003}}]}
    """)
    assert found == [
        "1: unknown key 'conversation' (did you mean 'conversations'?)",
        "5: unknown key 'custmer_id' (did you mean 'customer_id'?), in conversation 'keys'",
        "6: profile field 'is_premum' is not declared by the agent (did you mean 'is_premium'?), in conversation 'keys'",
        "8: unknown key 'usr' (did you mean 'user'?), in conversation 'keys' turn 1",
        "8: each turn needs 'user', the customer's message as a string, in conversation 'keys' turn 1",
        "10: unknown model purpose 'sensr' (did you mean 'sensor'?), in conversation 'keys' turn 2",
        "11: tool 'lookup_order' has no argument 'ordr_id' (did you mean 'order_id'?; its input: ['order_id']), "
        "in conversation 'keys' turn 2",
    ]


def test_a_value_of_the_wrong_kind_names_its_line(tmp_path):
    assert problems(tmp_path, """\
        conversations:
          - name: kinds
            turns:
              - user: Hello!
                expect:
                  regenerations: "1"
    """) == ["6: expectation 'regenerations' must be a whole number ≥ 0, got '1', in conversation 'kinds' turn 1"]



def test_each_expectation_of_the_wrong_kind_says_what_it_must_be(tmp_path):
    where = ", in conversation 'kinds' turn 1"
    assert problems(tmp_path, """\
        conversations:
          - name: kinds
            turns:
              - user: Hello!
                expect:
                  approval_state: waiting
                  execution_path: answer
                  intent: 3
                  scenario: [refund]
                  step: null
                  matched_rules: refund_cap
                  violations: [7]
                  blocked_tools: {}
                  commands: StartFlow
                  tool_calls: lookup_order
                  suggested_questions: 2
                  model_calls: -1
                  regenerations: true
                  fast_path: "yes"
                  fallback_used: 0
                  response_contains: ""
                  response_not_contains: []
                  matched_rules_exclude: [refund_cap, 5]
                  unverified: null
    """) == [
        "6: expectation 'approval_state' must be one of ['none', 'awaiting_approval', 'approved', 'denied', 'expired'], "
        "got 'waiting'" + where,
        "7: expectation 'execution_path' must be one of ['respond', 'clarify', 'approval', 'rejected', 'fallback', "
        "'escalate'], got 'answer'" + where,
        "8: expectation 'intent' must be null or a intent id, got 3" + where,
        "9: expectation 'scenario' must be null or a scenario id, got ['refund']" + where,
        "11: expectation 'matched_rules' must be a list of rule ids, got 'refund_cap'" + where,
        "12: expectation 'violations' must be a list of rule or output check ids, got [7]" + where,
        "13: expectation 'blocked_tools' must be a list of tool ids, got {}" + where,
        "14: expectation 'commands' must be a list of command ids, got 'StartFlow'" + where,
        "15: expectation 'tool_calls' must be a list of tool ids and {tool: {argument: value}} entries, or one "
        "mapping {tool: {argument: value}}, got 'lookup_order'" + where,
        "16: expectation 'suggested_questions' must be true, false or a list of questions, got 2" + where,
        "17: expectation 'model_calls' must be a whole number ≥ 0, got -1" + where,
        "18: expectation 'regenerations' must be a whole number ≥ 0, got True" + where,
        "19: expectation 'fast_path' must be true or false, got 'yes'" + where,
        "20: expectation 'fallback_used' must be true or false, got 0" + where,
        "21: expectation 'response_contains' must be a non-empty string or list of strings, got ''" + where,
        "22: expectation 'response_not_contains' must be a non-empty string or list of strings, got []" + where,
        "23: expectation 'matched_rules_exclude' must be a list of rule ids, got ['refund_cap', 5]" + where,
        "24: expectation 'unverified' must be a list of rule ids, got None" + where,
    ]


def test_expectations_of_the_right_kind_pass(tmp_path):
    path = tmp_path / "tests.yaml"
    path.write_text(textwrap.dedent("""\
        conversations:
          - name: kinds
            turns:
              - user: Hello!
                expect:
                  approval_state: approved
                  execution_path: respond
                  intent: null
                  scenario: refund
                  step: collect_order
                  matched_rules: [refund_cap]
                  violations: [refund_cap, relevance]
                  blocked_tools: []
                  commands: [StartFlow]
                  tool_calls: [lookup_order]
                  suggested_questions: ["Where is my order?"]
                  model_calls: 0
                  regenerations: 2
                  fast_path: true
                  fallback_used: false
                  response_contains: [refund]
                  response_not_contains: sorry
    """), encoding="utf-8")
    [conversation] = load_suite(path, AGENT)
    assert conversation.turns[0].expect["step"] == "collect_order"

def test_a_yaml_syntax_error_names_its_line(tmp_path):
    assert problems(tmp_path, "conversations:\n  - name: [unclosed\n") == [
        "3: YAML syntax error: expected ',' or ']', but got '<stream end>'"]


def test_every_expectation_key_has_its_check():
    assert sorted(EXPECT_CHECKS) == sorted(EXPECT_KEYS)


def test_every_purpose_a_turn_calls_a_model_for_can_be_scripted(tmp_path):
    """Car-rental newcomer: the model's reading of a draft's values (`extract`) and the grounding re-check could not be
    scripted ("unknown model purpose 'extract'"), so no suite could show a draft the offline reader leaves to a model
    (an answer in the customer's language) being read and sent, or read and blocked."""
    path = tmp_path / "tests.yaml"
    path.write_text(textwrap.dedent("""\
        conversations:
          - name: read by a model
            turns:
              - user: How long does delivery take?
                model:
                  generate: ["Delivery takes 3-5 business days."]
                  extract: [{values: {refund_amount: null}}]
                  grounding: [{supported: true}]
    """), encoding="utf-8")
    suite = load_suite(path, AGENT)
    scripted = suite[0].turns[0].model
    assert set(scripted) == {"generate", "extract", "grounding"}
    assert json.loads(scripted["extract"][0]) == {"values": {"refund_amount": None}}
