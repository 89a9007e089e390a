"""A conversation's `setup`: a function of the agent's folder called once before its first turn (e.g. to put
the tools' process state back to a known state), checked when the suite loads, and failing the conversation
before any turn when it fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.cli.conversation_tests import SuiteError, format_report, run_suite

AGENT = """
id: counter
name: Visit counter
out_of_scope_message: I can count your visits.
profile_field_definitions:
  - {field_name: visits, field_type: integer, sources: [tool]}
tools:
  - id: visit
    entrypoint: 'tools.py:visit'
    output: {visits: visits}
    side_effect: false
scenarios:
  - id: count
    name: Count a visit
    intent_label: count
    entry_examples: [count my visit, register a visit please, add one more visit to my count]
    entry_step_id: visit
    steps:
      - id: visit
        action: [visit]
        transitions: [{target: report}]
      - id: report
        response_template: "Visits so far: {visits}."
"""

TOOLS = '''
state = {"visits": 0}


def visit() -> dict:
    state["visits"] += 1
    return {"visits": state["visits"]}


def reset() -> dict:
    state["visits"] = 0
    return {"reset": True}


def broken() -> dict:
    raise RuntimeError("the data could not be restored")
'''


def _turn(count: int) -> str:
    return f"""
    turns:
      - user: count my visit
        expect: {{scenario: count, tool_calls: [visit], response_contains: "Visits so far: {count}."}}
"""


@pytest.fixture()
def agent(tmp_path: Path) -> Path:
    (tmp_path / "agent.yaml").write_text(AGENT)
    (tmp_path / "tools.py").write_text(TOOLS)
    return tmp_path / "agent.yaml"


def test_setup_runs_before_the_first_turn_of_its_conversation_only(agent: Path) -> None:
    suite = agent.parent / "tests.yaml"
    suite.write_text("conversations:\n"
                     "  - name: first\n    setup: tools.py:reset" + _turn(1)
                     + "  - name: state carries over without a setup" + _turn(2)
                     + "  - name: a setup starts again from a known state\n    setup: tools.py:reset" + _turn(1))
    report = run_suite(agent, suite)
    assert report.passed, "\n" + format_report(report)


def test_a_failing_setup_fails_its_conversation_before_any_turn(agent: Path) -> None:
    suite = agent.parent / "tests.yaml"
    suite.write_text("conversations:\n"
                     "  - name: broken setup\n    setup: tools.py:broken" + _turn(1)
                     + "  - name: the next conversation still runs" + _turn(1))
    report = run_suite(agent, suite)
    broken, after = report.conversations
    assert not broken.passed and not broken.turns
    assert "the data could not be restored" in (broken.error or "")
    assert after.passed, "\n" + format_report(report)
    assert "error after 0 turn(s)" in format_report(report)


def test_a_setup_that_cannot_be_loaded_is_a_suite_error(agent: Path) -> None:
    suite = agent.parent / "tests.yaml"
    suite.write_text("conversations:\n"
                     "  - name: missing function\n    setup: tools.py:restore" + _turn(1)
                     + "  - name: missing file\n    setup: data.py:reset" + _turn(1)
                     + "  - name: outside the folder\n    setup: ../tools.py:reset" + _turn(1)
                     + "  - name: not text\n    setup: 3" + _turn(1))
    with pytest.raises(SuiteError) as caught:
        run_suite(agent, suite)
    problems = caught.value.problems
    assert len(problems) == 4, problems
    assert all("setup" in p for p in problems)
    assert "'missing function'" in problems[0] and "restore" in problems[0]
    assert "'not text'" in problems[3] and "'file.py:function'" in problems[3]
