"""`focal test` as a command: -x stops at the first failing conversation (with -k), every suite is read and
checked before any model is loaded, and --junit is written for an invalid suite too."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from focal.cli.conversation_tests import format_report, run_suite
from focal.main import main

AGENT = str(Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml")
SUITE = """\
    conversations:
      - name: greeting passes
        turns: [{user: Hello!, expect: {tool_calls: []}}]
      - name: first failure
        turns: [{user: Hello!, expect: {response_contains: never said}}]
      - name: second failure
        turns: [{user: hi there, expect: {response_contains: never said either}}]
      - name: greeting again
        turns: [{user: hi there, expect: {tool_calls: []}}]
"""
BAD = """\
    conversations:
      - name: typo
        turns:
          - user: Hello!
            expect: {tool_call: [lookup_order]}
"""


def write(folder: Path, text: str, name: str = "tests.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_x_stops_at_the_first_failing_conversation(tmp_path, capsys):
    path = write(tmp_path, SUITE)
    report = run_suite(AGENT, path, stop_at_first_failure=True)
    assert [c.name for c in report.conversations] == ["greeting passes", "first failure"]
    assert report.not_run == ["second failure", "greeting again"]
    assert "stopped at the first failure (-x): 2 conversation(s) not run" in format_report(report)
    assert main(["test", AGENT, str(path), "-x", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in out["conversations"]] == ["greeting passes", "first failure"]
    assert out["not_run"] == ["second failure", "greeting again"]


def test_x_with_k_stops_among_the_selected_conversations(tmp_path, capsys):
    path = write(tmp_path, SUITE)
    assert main(["test", AGENT, str(path), "-k", "again", "-k", "second", "-x"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  second failure" in out and "greeting again" not in out.split("FAIL  second failure")[0]
    assert "1 conversation(s) not run" in out
    assert main(["test", AGENT, str(path), "-k", "greeting", "-x"]) == 0  # nothing fails: all selected run
    assert "2 of 2 conversation(s) passed" in capsys.readouterr().out


def test_x_does_not_start_the_next_suite_after_a_failure(tmp_path, capsys):
    failing = write(tmp_path, SUITE)
    second = write(tmp_path, "conversations:\n  - name: later\n    turns: [{user: Hello!}]\n", "later.yaml")
    assert main(["test", AGENT, str(failing), str(second), "-x", "--json"]) == 1
    first, later = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in first["conversations"]] == ["greeting passes", "first failure"]
    assert later["conversations"] == [] and later["not_run"] == ["later"]


def test_every_suite_is_checked_before_the_embedding_model_loads(tmp_path, capsys, monkeypatch):
    from focal.adapters import onnx_embedder

    def no_model(*args, **kwargs):
        raise AssertionError("the embedding model was loaded before the suites were checked")

    monkeypatch.setattr(onnx_embedder, "shared_embedder", no_model)
    monkeypatch.setattr(onnx_embedder, "OnnxEmbedder", no_model)
    good = write(tmp_path, SUITE)
    bad = write(tmp_path, BAD, "bad.yaml")
    assert main(["test", AGENT, str(good), str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:5: unknown expectation 'tool_call' (did you mean 'tool_calls'?)" in err
    assert "loading the MiniLM model" not in err


def test_an_invalid_agent_is_reported_before_the_model_loads(tmp_path, capsys, monkeypatch):
    from focal.adapters import onnx_embedder

    monkeypatch.setattr(onnx_embedder, "shared_embedder", pytest.fail)
    agent = write(tmp_path, "id: a\nname: A\nscenarios: [{id: s, entry_step_id: nowhere, steps: []}]\n", "agent.yaml")
    assert main(["test", str(agent), str(write(tmp_path, SUITE))]) == 1
    assert "problem(s)" in capsys.readouterr().err


def test_junit_is_written_for_an_invalid_suite(tmp_path, capsys):
    good = write(tmp_path, SUITE)
    bad = write(tmp_path, BAD, "bad.yaml")
    out = tmp_path / "junit" / "focal.xml"
    assert main(["test", AGENT, str(good), str(bad), "--junit", str(out)]) == 1
    root = ET.parse(out).getroot()
    assert root.get("errors") == "1"
    [suite] = [s for s in root.findall("testsuite") if s.get("name") == str(bad)]
    assert (suite.get("tests"), suite.get("errors"), suite.get("failures")) == ("1", "1", "0")
    [case] = suite.findall("testcase")
    error = case.find("error")
    assert case.get("name") == "suite file" and error.get("type") == "InvalidSuite"
    assert "unknown expectation 'tool_call' (did you mean 'tool_calls'?)" in error.get("message")
    assert f"{bad}:5:" in error.text
    assert f"JUnit XML: {out}" in capsys.readouterr().err


def test_junit_is_written_for_an_invalid_agent(tmp_path):
    agent = write(tmp_path, "id: a\nname: A\nscenarios: [{id: s, entry_step_id: nowhere, steps: []}]\n", "agent.yaml")
    suite = write(tmp_path, SUITE)
    out = tmp_path / "focal.xml"
    assert main(["test", str(agent), str(suite), "--junit", str(out)]) == 1
    [testsuite] = ET.parse(out).getroot().findall("testsuite")
    [case] = testsuite.findall("testcase")
    assert case.get("name") == "agent file" and case.find("error").get("type") == "InvalidAgent"


def test_junit_lists_the_conversations_x_did_not_run_as_skipped(tmp_path):
    out = tmp_path / "focal.xml"
    assert main(["test", AGENT, str(write(tmp_path, SUITE)), "-x", "--junit", str(out)]) == 1
    [suite] = ET.parse(out).getroot().findall("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "1", "2")
    skipped = {c.get("name"): c.find("skipped") for c in suite.findall("testcase") if c.find("skipped") is not None}
    assert sorted(skipped) == ["greeting again", "second failure"]
    assert all(s.get("message") == "not run: -x stopped at the first failure" for s in skipped.values())
