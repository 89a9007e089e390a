"""What the `focal` command tells a person and a CI system: JUnit XML and JSON from `focal test`,
colour only on a terminal, help with defaults and examples, --version, the chat greeting, progress
lines on stderr."""

from __future__ import annotations

import argparse
import io
import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from focal.cli.help_texts import subcommands
from focal.cli.style import colour_for, paint, plain
from focal.main import main, parser

AGENT = str(Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml")

SUITE = """\
conversations:
  - name: hello passes
    turns:
      - user: Hello!
        expect: {execution_path: respond, scenario: null, tool_calls: []}
  - name: status fails
    customer_id: c-200
    turns:
      - user: Hello!
        expect: {execution_path: respond}
      - user: Where is my order A1003?
        expect:
          scenario: refund
          response_contains: a sentence the agent never says
"""


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("suite") / "tests.yaml"
    path.write_text(SUITE, encoding="utf-8")
    return path


def test_junit_xml_is_read_back_with_counts_and_the_failing_turns(suite, tmp_path, capsys):
    out = tmp_path / "reports" / "focal.xml"
    assert main(["test", AGENT, str(suite), "--junit", str(out)]) == 1
    root = ET.parse(out).getroot()
    assert root.tag == "testsuites" and root.get("tests") == "2" and root.get("failures") == "1"
    [testsuite] = root.findall("testsuite")
    assert testsuite.get("name") == str(suite)
    assert (testsuite.get("tests"), testsuite.get("failures"), testsuite.get("errors")) == ("2", "1", "0")
    cases = {c.get("name"): c for c in testsuite.findall("testcase")}
    assert set(cases) == {"hello passes", "status fails"}
    assert all(c.get("classname") == "tests" and float(c.get("time")) > 0 for c in cases.values())
    assert cases["hello passes"].find("failure") is None
    failure = cases["status fails"].find("failure")
    assert failure.get("message") == "turn 2: expected scenario 'refund', got 'order_status'"
    assert "turn 2 > Where is my order A1003?" in failure.text
    assert "expected the response to contain 'a sentence the agent never says'" in failure.text
    assert "turn 1 >" not in failure.text  # only the failing turns
    assert "FAIL  status fails" in capsys.readouterr().out  # the text report is still printed


def test_json_report_is_the_reports_dict(suite, capsys):
    assert main(["test", AGENT, str(suite), "--json"]) == 1
    captured = capsys.readouterr()
    report = json.loads(captured.out)  # nothing but JSON on stdout
    assert report["passed"] is False and report["counts"] == {"conversations": 2, "failed": 1, "turns": 3}
    failing = next(c for c in report["conversations"] if c["name"] == "status fails")
    assert failing["passed"] is False and failing["failures"][0].startswith("turn 2: expected scenario 'refund'")
    assert "\x1b[" not in captured.out


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    assert colour_for(Tty()) is True
    assert colour_for(io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert colour_for(Tty()) is False


def test_the_trace_paints_blocked_and_unverified(monkeypatch):
    from types import SimpleNamespace

    from focal.cli.trace import format_trace

    result = SimpleNamespace(  # the attributes of a TurnResult the trace reads
        intent={"label": "refund_request", "confidence": 0.9}, scenario=None, execution_path="respond", confidence=0.8,
        matched_rules=["cap"], commands=[], prevalidation=[], suggested_questions=[], error=None,
        timings_ms={"sensor": 1.0}, model_calls=0,
        enforcement={"checked": ["cap"], "violations": [{"rule_id": "cap", "lane": "deterministic", "reason": "75 > 50"}],
                     "unverified": ["tone"], "regenerations": 1, "fallback_used": True},
        tool_calls=[{"tool_id": "issue_refund", "status": "blocked", "error": "refund_guard"}],
    )
    coloured = format_trace(result, colour=True)
    assert paint("BLOCKED", "blocked", True) in coloured and paint("UNVERIFIED", "unverified", True) in coloured
    assert paint("ACTION BLOCKED", "blocked", True) in coloured and paint("fallback used", "fallback", True) in coloured
    assert plain(coloured) == format_trace(result) and "\x1b[" not in format_trace(result)


def test_every_option_of_every_command_has_help_and_every_command_an_example():
    commands = subcommands(parser())
    assert {"validate", "test", "chat", "serve", "keys create", "bench coldstart"} <= {path for path, _ in commands}
    for path, sub in commands:
        assert sub.epilog and sub.epilog.startswith("example:\n  focal "), path
        for action in sub._actions:
            if not isinstance(action, argparse._SubParsersAction):
                assert action.help, (path, action.option_strings or action.dest)


def test_help_shows_defaults_and_the_example(capsys):
    with pytest.raises(SystemExit):
        main(["chat", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--db DB the local SQLite file that keeps sessions, profiles and turns (default: .focal/focal.db)" in text
    assert "--customer CUSTOMER customer id (profile and memory are kept per customer) (default: anonymous)" in text
    assert "(default: None)" not in text and "(default: False)" not in text
    assert "example: focal chat examples/retail/agent.yaml --session s1" in text


def test_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"focal {version('focal')}"


def test_chat_greets_first_and_announces_first_time_work_on_stderr(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("Hello!\n\n"))
    assert main(["chat", AGENT, "--db", str(tmp_path / "c.db"), "--session", "g"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    from focal.config.loader import load_agent

    assert lines[1] == f"agent> {load_agent(AGENT).greeting}"
    assert "indexing" in captured.err and "first time" in captured.err  # a fresh database: the index is built
    assert "indexing" not in captured.out
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))
    assert main(["chat", AGENT, "--db", str(tmp_path / "c.db"), "--json"]) == 0
    again = capsys.readouterr()
    assert json.loads(again.out.splitlines()[0]) == {"greeting": load_agent(AGENT).greeting}
    assert "indexing" not in again.err  # nothing changed since: no index work announced


def test_first_turn_of_a_suite_names_the_model_load_when_not_loaded(monkeypatch, capsys):
    from focal import main as cli
    from focal.adapters import onnx_embedder

    monkeypatch.setattr(onnx_embedder, "_shared", {})
    cli._loading_model()
    assert capsys.readouterr().err == "loading the MiniLM model…\n"
    monkeypatch.setattr(onnx_embedder, "_shared", {"loaded": object()})
    cli._loading_model()
    assert capsys.readouterr().err == ""


def test_format_report_colours_pass_and_fail_only_when_asked(suite):
    from focal.cli.conversation_tests import format_report, run_suite

    report = run_suite(AGENT, suite)
    coloured = format_report(report, colour=True)
    assert paint("PASS", "pass", True) in coloured and paint("FAIL", "blocked", True) in coloured
    assert plain(coloured) == format_report(report)
    assert textwrap.dedent(format_report(report)).count("\x1b[") == 0


def test_the_trace_says_which_rules_were_not_judged_and_why(tmp_path):
    """A real turn of the guardrails example: its broken rule is in scope, so nothing is judged or redrafted."""
    from pathlib import Path

    from focal.cli.trace import format_trace
    from focal.models.turn import TurnRequest
    from focal.pipeline.runner import LocalRunner
    from focal.wiring import local_deps

    agent = Path(__file__).resolve().parents[2] / "examples" / "guardrails" / "agent.yaml"
    result = LocalRunner(local_deps(str(agent), tmp_path / "focal.db")).turn(TurnRequest(
        tenant_id="t", agent_id="guardrails", session_id="s", turn_id="1",
        message="How much does the premium plan cost per month?"))
    text = format_trace(result)
    assert "not judged: acknowledge_frustration (the draft is blocked by premium_price_check" in text
    assert "not regenerated: premium_price_check: no draft can satisfy it" in text
