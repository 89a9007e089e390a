"""`focal test --live`: a suite against a model that is not scripted by the suite. Here the "real" model is a
canned one served through litellm's real `completion` (`mock_response`), the path suites use: no network.

What is checked live: tool_calls (with arguments), blocked_tools, response texts, rejected/approval paths
and hard rules kept by the answer sent; everything else is reported as skipped, never as passed."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import litellm
import pytest

import focal.cli.live_tests as live_tests
from focal.adapters.litellm_model import LiteLLMModel
from focal.cli.live_report import format_live_report
from focal.cli.live_tests import run_live_suite
from focal.main import main

AGENT = str(Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml")
OVER_CAP = "Great news: your refund of $75.00 for order A1002 is approved!"


class CannedModel(LiteLLMModel):
    """A model for the purposes in `answers` (a text, an exception, or a function of the messages), each
    answer delivered by litellm.completion(mock_response=…)."""
    spends_no_time = True  # scripted: read the same on a loaded machine (focal.turn.budget)

    def __init__(self, answers: dict[str, str | Exception | Callable[[list[dict[str, str]]], str]]):
        super().__init__("openai/gpt-4o-mini", warm=False)
        self.answers = answers
        self.sleep = lambda s: None  # no real backoff between retries

    def available(self, purpose: str) -> bool:
        return purpose in self.answers

    def complete(self, purpose, messages, json_schema=None):
        answer = self.answers[purpose]
        text = answer(messages) if callable(answer) else answer
        return self._call(self.model or "", messages, json_schema, {"mock_response": text})


SUITE = """\
conversations:
  - name: greeting, scripted outputs ignored
    turns:
      - user: Hello!
        model: {generate: ["Scripted hello that must never be used"]}
        expect: {scenario: null, intent: null, tool_calls: [], response_not_contains: "Scripted hello"}
  - name: refund over the cap
    customer_id: c-100
    setup: tools.py:reset_state
    turns:
      - user: I want a refund for my order
        expect: {scenario: refund, step: collect_order, tool_calls: []}
      - user: It's A1002
        expect:
          tool_calls: [lookup_order, {check_refund_eligibility: {order_id: a1002}}]
          violations: [refund_cap, relevance]
          regenerations: 1
          fallback_used: false
          execution_path: respond
          response_not_contains: ["$75"]
  - name: nothing checkable live
    turns:
      - user: I want a refund for my order
        expect: {scenario: refund, step: collect_order, matched_rules: []}
  - name: a text the model never says
    turns:
      - user: Hello!
        expect: {response_contains: a sentence nobody says}
"""


@pytest.fixture()
def suite(tmp_path: Path) -> Path:
    path = tmp_path / "tests.yaml"
    path.write_text(SUITE, encoding="utf-8")
    return path


def over_cap_model() -> CannedModel:
    return CannedModel({"generate": OVER_CAP})


def test_scripts_are_ignored_only_live_keys_are_checked_and_the_rest_is_skipped(suite):
    report = run_live_suite(AGENT, suite, over_cap_model(), "canned")
    greeting, refund, unchecked, unsaid = report.conversations
    assert all("Scripted hello" not in t.response for c in report.conversations for t in c.turns)
    assert greeting.turns[0].scripted_ignored == ["generate"]
    assert greeting.turns[0].checked == ["response_not_contains", "tool_calls"]
    assert greeting.turns[0].skipped == ["scenario", "intent"]

    offer = refund.turns[1]
    assert offer.checked == ["response_not_contains", "tool_calls", "violations"]
    # relevance is an output check and respond depends on the model: skipped, as are the counts
    assert offer.skipped == ["regenerations", "fallback_used", "execution_path", "violations (relevance)"]
    assert offer.provoked == ["refund_cap"] and offer.drafts_blocked >= 1  # the model's $75 draft was blocked
    assert "$75" not in offer.response and offer.passed and refund.passed

    assert [t.status for t in unchecked.turns] == ["unchecked"] and unchecked.passed and not unchecked.checked
    assert unsaid.turns[0].status == "FAIL" and not report.passed
    assert unsaid.turns[0].failures == [
        f"expected the response to contain 'a sentence nobody says', got {unsaid.turns[0].response!r}"]


def test_the_report_gives_the_models_figures(suite):
    report = run_live_suite(AGENT, suite, over_cap_model(), "canned")
    s = report.summary()
    calls = [c for t in report.turns for c in t.calls]
    assert s["turns"] == 5 and s["turns_unchecked"] == 1 and s["turns_failing"] == 1
    assert s["turns_passing"] == 3 and s["turns_checked"] == 4
    assert s["model_calls"] == len(calls) > 0 and set(s["calls_per_turn_by_purpose"]) == {"generate"}
    assert s["calls_per_turn"] == round(len(calls) / 5, 2)
    assert s["p50_ms_per_call"] is not None and s["p50_ms_by_purpose"]["generate"] >= 0
    assert s["drafts_blocked"] >= 1 and s["hard_rule_violations_provoked"] == 1 and s["scripted_outputs_ignored"] == 1
    assert s["expectations_skipped"]["scenario"] == 3 and "scenario" not in s["expectations_checked"]
    text = format_live_report(report)
    assert "model calls per turn" in text and "p50" in text and "SKIP  nothing checkable live" in text
    assert "FAIL  a text the model never says" in text and "PASS  refund over the cap" in text
    assert "turns: 3 of 4 checked turn(s) passed, 1 failed; 1 of 5 with nothing checkable live (skipped)" in text


def test_a_model_that_times_out_leaves_the_turn_offline_and_is_counted(tmp_path):
    path = tmp_path / "tests.yaml"
    path.write_text(textwrap.dedent("""\
        conversations:
          - name: policy question
            turns:
              - user: how long does shipping take?
                expect: {tool_calls: [], response_contains: business days}
    """), encoding="utf-8")
    timeout = litellm.Timeout(message="too slow", model="gpt-4o-mini", llm_provider="openai")
    report = run_live_suite(AGENT, path, CannedModel({"generate": timeout}), "canned")
    [turn] = report.conversations[0].turns
    assert turn.passed and turn.calls and all(not c["ok"] for c in turn.calls)
    assert turn.calls[0]["note"].startswith("Timeout from model provider")
    assert report.summary()["calls_failed"] == {"generate: Timeout from model provider after 2 attempts": len(turn.calls)}


def test_cli_live_needs_a_model(suite, monkeypatch, capsys):
    monkeypatch.delenv("FOCAL_MODEL", raising=False)
    assert main(["test", AGENT, str(suite), "--live"]) == 2
    err = capsys.readouterr().err
    assert "focal test --live needs a model" in err and "FOCAL_MODEL" in err and "--model" in err


def test_cli_live_runs_the_named_model_with_k_json_and_junit(suite, monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("FOCAL_MODEL", raising=False)
    made: list[str] = []
    monkeypatch.setattr(live_tests, "live_model", lambda name: made.append(name) or over_cap_model())
    junit = tmp_path / "live.xml"
    argv = ["test", AGENT, str(suite), "--live", "--model", "openai/local", "-k", "REFUND OVER", "-k", "checkable",
            "--junit", str(junit), "--json"]
    assert main(argv) == 0
    assert made == ["openai/local"]
    out = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in out["conversations"]] == ["refund over the cap", "nothing checkable live"]
    assert out["live"]["model"] == "openai/local" and out["live"]["turns_passing"] == 2
    assert out["conversations"][1]["checked"] is False and out["conversations"][1]["turns"][0]["status"] == "unchecked"
    [testsuite] = ET.parse(junit).getroot().findall("testsuite")
    assert (testsuite.get("tests"), testsuite.get("failures"), testsuite.get("skipped")) == ("2", "0", "1")
    cases = {c.get("name"): c for c in testsuite.findall("testcase")}
    assert cases["nothing checkable live"].find("skipped") is not None
    assert cases["refund over the cap"].find("skipped") is None


def test_cli_live_takes_the_model_from_focal_model_and_prints_the_text_report(suite, monkeypatch, capsys):
    monkeypatch.setenv("FOCAL_MODEL", "openai/from-env")
    made: list[str] = []
    monkeypatch.setattr(live_tests, "live_model", lambda name: made.append(name) or over_cap_model())
    assert main(["test", AGENT, str(suite), "--live", "-k", "never says"]) == 1
    out = capsys.readouterr().out
    assert made == ["openai/from-env"]
    assert "focal test --live:" in out and "model openai/from-env" in out and "FAIL  a text the model never says" in out
    assert "· checked: response_contains" in out  # the failing turn says what was checked
