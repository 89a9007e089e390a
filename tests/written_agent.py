"""Shared by the functional tests that write an agent of their own: its files, and one conversation run through
`focal test`'s runner (the suite must pass; the report is shown when it does not)."""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.cli.conversation_tests import format_report, run_suite


def write_agent(folder: Path, agent: str, tools: str) -> Path:
    (folder / "agent.yaml").write_text(agent)
    (folder / "tools.py").write_text(tools)
    return folder / "agent.yaml"


def passes(folder: Path, agent: str, tools: str, turns: list[dict], name: str = "conversation") -> None:
    path = write_agent(folder, agent, tools)
    suite = folder / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": name, "turns": turns}]}))
    report = run_suite(path, suite)
    assert report.conversations and report.passed, "\n" + format_report(report)
