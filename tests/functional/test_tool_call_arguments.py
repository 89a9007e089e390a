"""`tool_calls: [{tool: {argument: value}}]` in a conversation test, and `focal test -k` (offline suites)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from focal.cli.conversation_tests import SuiteError, run_suite
from focal.main import main

AGENT = str(Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tests.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def status_suite(tmp_path: Path, calls: str) -> Path:
    return write(tmp_path, f"""\
        conversations:
          - name: order status
            customer_id: c-200
            turns:
              - user: Where is my order A1003?
                expect: {{tool_calls: {calls}}}
    """)


@pytest.mark.parametrize("calls", ["[lookup_order]", "[{lookup_order: {order_id: a1003}}]",
                                   "[{lookup_order: {order_id: ' A1003 '}}]", "[{lookup_order: }]",
                                   "{lookup_order: {order_id: A1003}}"])
def test_a_call_with_the_expected_arguments_passes(tmp_path, calls):
    report = run_suite(AGENT, status_suite(tmp_path, calls))
    assert report.passed, report.conversations[0].failures


def test_a_call_with_other_arguments_fails_and_shows_the_arguments_it_had(tmp_path):
    report = run_suite(AGENT, status_suite(tmp_path, "[{lookup_order: {order_id: A1004}}]"))
    [failure] = report.conversations[0].failures
    assert failure.startswith("turn 1: expected lookup_order with arguments {'order_id': 'A1004'}, got [{")
    assert "'order_id': 'A1003'" in failure


def test_the_mapping_form_is_checked_as_the_list_form(tmp_path):
    report = run_suite(AGENT, status_suite(tmp_path, "{lookup_order: {order_id: A1004}}"))
    [failure] = report.conversations[0].failures
    assert failure.startswith("turn 1: expected lookup_order with arguments {'order_id': 'A1004'}, got [{")


def test_a_tool_that_did_not_run_is_reported_once(tmp_path):
    report = run_suite(AGENT, status_suite(tmp_path, "[{issue_refund: {order_id: A1003}}]"))
    [failure] = report.conversations[0].failures
    assert failure.startswith("turn 1: expected tool calls ['issue_refund'] with status ok, got ['lookup_order (ok)'")


def test_argument_expectations_are_checked_when_the_suite_loads(tmp_path):
    path = status_suite(tmp_path, "[{lookup_order: {order: A1003}}, {lookup_order: [A1003]}, {no_tool: {}}, 5]")
    with pytest.raises(SuiteError) as caught:
        run_suite(AGENT, path)
    problems = caught.value.problems
    assert problems == [f"{path}:6: expectation 'tool_calls' must be a list of tool ids and {{tool: {{argument: value}}}} "
                        "entries, or one mapping {tool: {argument: value}}, got "
                        "[{'lookup_order': {'order': 'A1003'}}, {'lookup_order': ['A1003']}, {'no_tool': {}}, 5], "
                        "in conversation 'order status' turn 1"]
    path = status_suite(tmp_path, "[{lookup_order: {order: A1003}}, {lookup_order: [A1003]}, {no_tool: {}}]")
    with pytest.raises(SuiteError) as caught:
        run_suite(AGENT, path)
    where = ", in conversation 'order status' turn 1"
    assert caught.value.problems == [
        f"{path}:6: tool 'lookup_order' has no argument 'order' (did you mean 'order_id'?; its input: ['order_id'])"
        + where,
        f"{path}:6: expectation 'tool_calls' gives 'lookup_order' arguments ['A1003']: write a mapping of argument "
        "names to values" + where,
        f"{path}:6: unknown tool 'no_tool' in 'tool_calls' (the agent has: check_refund_eligibility, issue_refund, "
        "lookup_order, update_address)" + where,
    ]


def test_k_runs_only_the_conversations_it_names(tmp_path, capsys):
    path = write(tmp_path, """\
        conversations:
          - name: Greeting one
            turns: [{user: Hello!, expect: {tool_calls: []}}]
          - name: greeting two
            turns: [{user: hi there, expect: {tool_calls: []}}]
          - name: failing status
            turns: [{user: Hello!, expect: {response_contains: never said}}]
    """)
    assert [c.name for c in run_suite(AGENT, path, ["GREETING"]).conversations] == ["Greeting one", "greeting two"]
    assert run_suite(AGENT, path, ["nothing matches"]).conversations == []
    assert main(["test", AGENT, str(path), "-k", "greeting"]) == 0
    assert "2 of 2 conversation(s) passed" in capsys.readouterr().out
    assert main(["test", AGENT, str(path), "-k", "two", "-k", "failing"]) == 1
