"""The closing line of `focal test`: the benchmark's counts (tasks covered, violating attempts blocked) are
said only for a suite whose conversations name benchmark tasks; an ordinary suite with a guard expectation
ends with the pass count alone."""

from __future__ import annotations

from focal.cli.suite_report import ConversationReport, Report, TurnReport, format_report


def _report(task: int | None) -> Report:
    blocked = TurnReport(index=1, user="yes", response="I can't do that.", execution_path="rejected", guard_attempt=True)
    asked = TurnReport(index=1, user="hi", response="Hello", execution_path="respond")
    return Report(agent_path="agent.yaml", suite_path="tests.yaml", conversations=[
        ConversationReport(name="a guard stops it", turns=[blocked], task=task),
        ConversationReport(name="a greeting", turns=[asked], task=task)])


def test_a_suite_without_tasks_says_nothing_of_violating_attempts():
    text = format_report(_report(task=None))
    assert "violating attempts" not in text and "tasks covered" not in text
    assert text.splitlines()[-1].startswith("2 of 2 conversation(s) passed")


def test_a_benchmark_suite_counts_its_tasks_and_its_blocked_attempts():
    text = format_report(_report(task=3))
    assert text.splitlines()[-1] == "tasks covered: 1 of 1 · violating attempts blocked: 1 of 1"
