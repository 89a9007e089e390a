"""`focal test --junit FILE`: a conversation-test report as JUnit XML, the format CI systems read.

One <testsuite> per suite file, one <testcase> per conversation (classname: the suite's file name,
time in seconds). A failing conversation carries one <failure> whose message is its first failure
and whose text lists every failing turn: the customer's message, each expectation it missed, the
answer. A conversation that could not run to its end carries an <error>; its warnings (a scripted sensor
output not used, and why) are its <system-out>. In a live run
(`focal test --live`), a conversation none of whose expectations could be checked live is <skipped>, and so
is one `-x` did not start after a failure. A suite that could not run at all (the suite file or the agent
file is invalid) is a <testsuite> with one <testcase> ("suite file" or "agent file") carrying an <error>
that lists every problem.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from focal.cli.conversation_tests import Report

# Characters XML 1.0 cannot carry, even escaped (model output or a customer message might contain them).
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass
class InvalidSuite:
    """A suite that did not run: its file, or the agent's, has problems (`what` is "suite" or "agent")."""

    suite_path: str
    agent_path: str
    what: str
    problems: list[str]


def _text(value: str) -> str:
    return _INVALID_XML.sub("\ufffd", value)


def _failing_turns(report_conv) -> str:  # noqa: ANN001 - a ConversationReport
    lines: list[str] = []
    for turn in report_conv.turns:
        if turn.passed:
            continue
        lines.append(f"turn {turn.index} > {turn.user}")
        lines += [f"  ✗ {failure}" for failure in turn.failures]
        lines.append(f"  < [{turn.execution_path}] {turn.response}")
    return "\n".join(lines)


def _invalid(root: ET.Element, invalid: InvalidSuite) -> None:
    suite = ET.SubElement(root, "testsuite", name=_text(invalid.suite_path), tests="1", failures="0", errors="1",
                          skipped="0", time="0.000")
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="agent", value=_text(invalid.agent_path))
    case = ET.SubElement(suite, "testcase", classname=_text(Path(invalid.suite_path).stem), name=f"{invalid.what} file",
                         time="0.000")
    first = invalid.problems[0] if invalid.problems else "invalid"
    more = f" (and {len(invalid.problems) - 1} more problem(s))" if len(invalid.problems) > 1 else ""
    error = ET.SubElement(case, "error", message=_text(first + more),
                          type="InvalidSuite" if invalid.what == "suite" else "InvalidAgent")
    error.text = _text("\n".join(invalid.problems))


def junit_xml(reports: list[Report | InvalidSuite]) -> str:
    """The reports (one per suite file) as a JUnit XML document."""
    root = ET.Element("testsuites", name="focal test")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    total_time = 0.0
    for report in reports:
        if isinstance(report, InvalidSuite):
            _invalid(root, report)
            totals["tests"] += 1
            totals["errors"] += 1
            continue
        failures = sum(1 for c in report.conversations if c.error is None and not c.passed)
        errors = sum(1 for c in report.conversations if c.error is not None)
        skipped = sum(1 for c in report.conversations if c.passed and not getattr(c, "checked", True))
        skipped += len(report.not_run)
        tests = len(report.conversations) + len(report.not_run)
        suite = ET.SubElement(root, "testsuite", name=_text(report.suite_path), tests=str(tests),
                              failures=str(failures), errors=str(errors), skipped=str(skipped),
                              time=f"{report.ms / 1000:.3f}")
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="agent", value=_text(report.agent_path))
        if report.tasks_total:
            ET.SubElement(props, "property", name="tasks_total", value=str(report.tasks_total))
        classname = Path(report.suite_path).stem
        for conv in report.conversations:
            case = ET.SubElement(suite, "testcase", classname=_text(classname), name=_text(conv.name),
                                 time=f"{conv.ms / 1000:.3f}")
            if conv.error is not None:
                error = ET.SubElement(case, "error", message=_text(conv.error), type="ConversationError")
                error.text = _text(_failing_turns(conv) or conv.error)
            elif not conv.passed:
                failure = ET.SubElement(case, "failure", message=_text(conv.failures[0]), type="ExpectationFailed")
                failure.text = _text(_failing_turns(conv))
            elif not getattr(conv, "checked", True):
                ET.SubElement(case, "skipped", message="no expectation of this conversation is checkable live")
            if getattr(conv, "warnings", None):
                ET.SubElement(case, "system-out").text = _text("\n".join(conv.warnings))
        for name in report.not_run:
            case = ET.SubElement(suite, "testcase", classname=_text(classname), name=_text(name), time="0.000")
            ET.SubElement(case, "skipped", message="not run: -x stopped at the first failure")
        totals["tests"] += tests
        totals["failures"] += failures
        totals["errors"] += errors
        totals["skipped"] += skipped
        total_time += report.ms / 1000
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{total_time:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(reports: list[Report | InvalidSuite], path: str | Path) -> None:
    target = Path(path)
    if target.parent != Path(""):
        target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(junit_xml(reports), encoding="utf-8")
