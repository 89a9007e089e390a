"""The report of a conversation-test run (focal.cli.conversation_tests): per conversation its turns, each turn
with what failed and what is only worth knowing (a warning: a scripted model output the turn did not use),
per suite the conversations `-x` left unrun; as text (`format_report`) or as a dict (`--json`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

SHOWN_RESPONSE = 300  # characters of the actual response quoted under a failing turn


def shown(response: str) -> str:
    text = response if len(response) <= SHOWN_RESPONSE else response[:SHOWN_RESPONSE] + "…"
    return repr(text)


@dataclass
class TurnReport:
    index: int  # 1-based
    user: str
    response: str
    execution_path: str
    failures: list[str] = field(default_factory=list)
    ms: float = 0.0
    guard_attempt: bool = False  # the turn expects a guard to block a tool (a non-empty blocked_tools)
    why: list[str] = field(default_factory=list)  # each draft and its verdicts, each guard that stopped a call
    warnings: list[str] = field(default_factory=list)  # shown under the turn, never a failure

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass
class ConversationReport:
    name: str
    turns: list[TurnReport] = field(default_factory=list)
    error: str | None = None  # the conversation could not run to its end
    ms: float = 0.0
    task: int | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(t.passed for t in self.turns)

    @property
    def failures(self) -> list[str]:
        """Every failure as one line: 'turn N: expected X, got Y'."""
        lines = [f"turn {t.index}: {f}" for t in self.turns for f in t.failures]
        return lines + ([f"error: {self.error}"] if self.error else [])

    @property
    def warnings(self) -> list[str]:
        return [f"turn {t.index}: {w}" for t in self.turns for w in t.warnings]


@dataclass
class Report:
    agent_path: str
    suite_path: str
    conversations: list[ConversationReport] = field(default_factory=list)
    ms: float = 0.0
    tasks_total: int | None = None  # the benchmark's number of tasks (the suite's `tasks_total`)
    not_run: list[str] = field(default_factory=list)  # conversations `-x` did not start after a failure

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.conversations)

    @property
    def failed(self) -> list[ConversationReport]:
        return [c for c in self.conversations if not c.passed]

    @property
    def tasks_covered(self) -> list[int]:
        """The distinct tasks of the conversations, those whose every conversation passed."""
        tasks = {c.task for c in self.conversations if c.task is not None}
        return sorted(t for t in tasks if all(c.passed for c in self.conversations if c.task == t))

    @property
    def guard_attempts(self) -> tuple[int, int]:
        """(blocked as expected, attempted): turns whose expect names tools a guard must block."""
        turns = [t for c in self.conversations for t in c.turns if t.guard_attempt]
        return sum(t.passed for t in turns), len(turns)

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["passed"] = self.passed
        out["counts"] = {"conversations": len(self.conversations), "failed": len(self.failed),
                         "turns": sum(len(c.turns) for c in self.conversations)}
        if any(c.task is not None for c in self.conversations):
            out["tasks_covered"] = self.tasks_covered
        for conv, report in zip(out["conversations"], self.conversations, strict=True):
            conv["passed"] = report.passed
            conv["failures"] = report.failures
            conv["warnings"] = report.warnings
        return out


def turn_lines(turn: Any, head: str, colour: bool) -> list[str]:
    """A reported turn: its head line, its failures and warnings, the answer it got and why (each draft, each guard)."""
    from focal.cli.style import paint

    return [head, *(f"        {paint('✗', 'blocked', colour)} {failure}" for failure in turn.failures),
            *(f"        {paint('⚠', 'unverified', colour)} {warning}" for warning in getattr(turn, "warnings", [])),
            f"        < [{turn.execution_path}] {shown(turn.response)}", *(f"          · {line}" for line in turn.why)]


def _warning_lines(turn: TurnReport, colour: bool) -> list[str]:
    from focal.cli.style import paint

    return [f"      turn {turn.index} > {turn.user}",
            *(f"        {paint('⚠', 'unverified', colour)} {warning}" for warning in turn.warnings)]


def error_line(conv: Any, colour: bool) -> str:
    """A conversation that could not run to its end: after how many turns, and why."""
    from focal.cli.style import paint

    return f"        {paint('✗', 'blocked', colour)} error after {len(conv.turns)} turn(s): {conv.error}"


def not_run_lines(report: Report) -> list[str]:
    """The conversations `-x` did not start, counted."""
    if not report.not_run:
        return []
    return [f"stopped at the first failure (-x): {len(report.not_run)} conversation(s) not run"]


def _shown_turn(turn: TurnReport, verbose: bool, colour: bool) -> list[str]:
    """A failing turn (any turn when `verbose`) in full; a passing one by its warnings only, if it has any."""
    if not turn.passed or verbose:
        return turn_lines(turn, f"      turn {turn.index} > {turn.user}", colour)
    return _warning_lines(turn, colour) if turn.warnings else []


def _conversation_lines(conv: ConversationReport, verbose: bool, colour: bool) -> list[str]:
    from focal.cli.style import paint

    mark = paint("PASS", "pass", colour) if conv.passed else paint("FAIL", "blocked", colour)
    lines = [f"{mark}  {conv.name}  ({len(conv.turns)} turn(s), {conv.ms / 1000:.2f}s)"]
    for turn in conv.turns:
        lines += _shown_turn(turn, verbose, colour)
    return lines + ([error_line(conv, colour)] if conv.error else [])


def _totals_line(report: Report, colour: bool) -> str:
    from focal.cli.style import paint

    failed, total = len(report.failed), len(report.conversations)
    turns = sum(len(c.turns) for c in report.conversations)
    summary = f"{total - failed} of {total} conversation(s) passed, {turns} turn(s), {report.ms / 1000:.2f}s"
    if not failed:
        return summary
    return f"{summary}; {paint('FAILED', 'blocked', colour)}: {', '.join(c.name for c in report.failed)}"


def _warned_lines(report: Report, colour: bool) -> list[str]:
    from focal.cli.style import paint

    warned = sum(1 for c in report.conversations for t in c.turns if t.warnings)
    return [f"{paint('⚠', 'unverified', colour)} {warned} turn(s) with warnings"] if warned else []


def _coverage_lines(report: Report) -> list[str]:
    """The benchmark tasks the suite covers and the violating attempts a guard blocked, when it has any."""
    tasks = {c.task for c in report.conversations if c.task is not None}
    if not tasks:  # a benchmark's counts: said only for a suite whose conversations name its tasks
        return []
    blocked, attempts = report.guard_attempts
    parts = [f"tasks covered: {len(report.tasks_covered)} of {report.tasks_total or len(tasks)}"]
    parts += [f"violating attempts blocked: {blocked} of {attempts}"] if attempts else []
    return [" · ".join(parts)]


def format_report(report: Report, verbose: bool = False, colour: bool = False) -> str:
    """One line per conversation; under a failing one, each failing turn with its failures and response; under
    any, each turn's warnings. `colour`: PASS in green, FAIL and each failure in red, warnings in yellow
    (`focal.cli.style`; the CLI sets it on a TTY only)."""
    lines = [f"focal test: {report.suite_path} against {report.agent_path}"]
    for conv in report.conversations:
        lines += _conversation_lines(conv, verbose, colour)
    lines += [_totals_line(report, colour), *_warned_lines(report, colour), *not_run_lines(report),
              *_coverage_lines(report)]
    return "\n".join(lines)
