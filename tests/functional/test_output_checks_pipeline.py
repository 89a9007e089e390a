"""Output checks through the whole local pipeline (issue 5): a scripted generation model at the port
drafts the answers; relevance and grounding verdicts land in the trace for every draft, a failing
check is repaired like a rule violation (regenerate, then fallback), and the retail conversation
suite passes with both checks on."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from example_tools import reset_state

from focal.cli.conversation_tests import TENANT_ID, format_report, load_suite, run_suite
from focal.config.loader import load_agent
from focal.errors import ConfigError
from focal.models.agent import EnforcementConfig
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.ports import ModelReply
from focal.wiring import local_deps

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail"


class ScriptedGenerator:
    """A generation model at the port boundary: answers with the given drafts, in order, then nothing."""

    spends_no_time = True  # scripted: read the same on a loaded machine (focal.turn.budget)

    def __init__(self, *drafts: str):
        self.drafts = list(drafts)
        self.prompts: list[str] = []  # the system messages
        self.data: list[str] = []  # the turn's data blocks

    def available(self, purpose: str) -> bool:
        return purpose == "generate" and bool(self.drafts)

    def complete(self, purpose, messages, json_schema=None) -> ModelReply:
        self.prompts.append(messages[0]["content"])
        self.data.append(messages[1]["content"])
        return ModelReply(text=self.drafts.pop(0), model="fake/generate")


def agent_copy(tmp_path: Path, **enforcement) -> Path:
    """The retail agent with its own tools module (fresh refund state) and these enforcement settings."""
    folder = tmp_path / "retail"
    shutil.copytree(RETAIL, folder)
    path = folder / "agent.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data.setdefault("enforcement", {}).update(enforcement)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def checked(tmp_path):
    path = agent_copy(tmp_path, relevance_check_enabled=True, grounding_check_enabled=True)
    return LocalRunner(local_deps(path, tmp_path / "focal.db"))


def say(runner: LocalRunner, message: str, n: int, model=None, session: str = "s1", customer: str = "c-100"):
    if model is not None:
        runner.deps.model = model
    return runner.turn(TurnRequest(tenant_id="t1", agent_id="retail", session_id=session, customer_id=customer,
                                   turn_id=f"{session}-{n}", message=message))


def verdicts(result, name: str) -> list[dict]:
    return [c for c in result.enforcement["checks"] if c["name"] == name]


def test_an_invented_order_total_is_flagged_and_regenerated(checked):
    say(checked, "I want a refund for my order", 0)
    model = ScriptedGenerator(
        "Order A1001 (Wireless mouse) came to $45.00. I can refund $45.00 to your card. Shall I go ahead?",
        "Order A1001 (Wireless mouse) came to $30.00. I can refund $30.00 to your card. Shall I go ahead?",
    )
    result = say(checked, "A1001", 1, model)
    assert [(v["rule_id"], v["lane"]) for v in result.enforcement["violations"]] == [("grounding", "grounding")]
    first, second = verdicts(result, "grounding")
    assert (first["draft"], first["passed"], first["unsupported"]) == (0, False, ["$45.00"])
    assert (second["draft"], second["passed"]) == (1, True)
    assert result.enforcement["regenerations"] == 1 and not result.enforcement["fallback_used"]
    assert "$30.00" in result.response and "$45" not in result.response
    # The feedback reaches the next draft as data: it quotes the model's own claim, never an instruction.
    assert "grounding: unsupported claim(s): '$45.00' (money)" in model.data[1]
    assert "$45" not in model.prompts[1]
    # The repaired offer still stands: "yes" refunds the real total.
    done = say(checked, "yes", 2, ScriptedGenerator())
    assert [t["tool_id"] for t in done.tool_calls] == ["issue_refund"] and "$30.00" in done.response


def test_offline_repair_of_a_grounding_violation_is_the_steps_own_answer(checked):
    say(checked, "I want a refund for my order", 0)
    result = say(checked, "A1001", 1, ScriptedGenerator("Your order came to $45, shall I refund it?"))
    assert result.enforcement["regenerations"] == 1 and not result.enforcement["fallback_used"]
    assert result.response.startswith("Order A1001 (Wireless mouse) came to $30.00")  # the confirmation prompt
    assert result.execution_path == "respond"
    assert [c["passed"] for c in verdicts(result, "grounding")] == [False, True]
    assert verdicts(result, "relevance")[-1]["method"] == "bypass"  # the agent's own template


def test_i_dont_know_passes_relevance(checked):
    result = say(checked, "Do you sell gift wrapping for birthday presents?", 0, ScriptedGenerator("I don't know."))
    assert result.response == "I don't know."
    [rel] = verdicts(result, "relevance")
    assert rel["passed"] and rel["method"] == "bypass" and rel["score"] is None
    assert result.enforcement["violations"] == []


def test_an_off_topic_answer_to_an_order_question_is_flagged_then_falls_back(checked):
    model = ScriptedGenerator("The capital of France is Paris.", "Paris is lovely in the spring.")
    result = say(checked, "Where is my order A1004?", 0, model, customer="c-200")
    rels = verdicts(result, "relevance")
    # both model drafts off topic; no rule was broken, so the agent's own words for the turn come before any fallback
    assert [(r["draft"], r["passed"]) for r in rels] == [(0, False), (1, False), (2, True)]
    assert all(r["score"] < r["threshold"] for r in rels[:2])
    assert {v["rule_id"] for v in result.enforcement["violations"]} == {"relevance"}
    assert not result.enforcement["fallback_used"] and result.execution_path == "respond"
    assert "A1004" in result.response and result.response != EnforcementConfig().fallback_message


def test_a_relevant_grounded_model_answer_passes_untouched(checked):
    say(checked, "Where is my order?", 0, customer="c-200")
    answer = "Your order A1004 (Phone case) is still processing, so it hasn't shipped yet."
    result = say(checked, "A1004", 1, ScriptedGenerator(answer), customer="c-200")
    assert result.response == answer
    assert [(c["name"], c["passed"]) for c in result.enforcement["checks"]] == [
        ("internals", True), ("language", True), ("relevance", True), ("grounding", True), ("unbound", True)]
    assert result.enforcement["regenerations"] == 0


def test_with_the_flags_off_only_the_internal_names_check_runs(tmp_path):
    path = agent_copy(tmp_path, relevance_check_enabled=False, grounding_check_enabled=False)
    runner = LocalRunner(local_deps(path, tmp_path / "off.db"))
    result = say(runner, "Where is my order A1004?", 0, ScriptedGenerator("The capital of France is Paris."), customer="c-200")
    assert [c["name"] for c in result.enforcement["checks"]] == ["internals", "language", "unbound"]  # always on
    assert result.enforcement["violations"] == []
    # nothing flags the off-topic draft, but it leaves out every value the finished step's own text shows: that
    # text is said instead (focal.stages.step_values), with no further check verdict in the trace
    assert result.response == "Order A1004 (Phone case) is processing."


def test_suites_may_name_the_output_checks_as_violations(tmp_path):
    agent = load_agent(RETAIL / "agent.yaml")
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": "c", "turns": [
        {"user": "hi", "expect": {"violations": ["relevance", "grounding", "refund_cap"]}}]}]}))
    assert load_suite(suite, agent)
    suite.write_text(yaml.safe_dump({"conversations": [{"name": "c", "turns": [
        {"user": "hi", "expect": {"violations": ["coherence"]}}]}]}))
    with pytest.raises(ConfigError, match="coherence"):
        load_suite(suite, agent)


def test_the_retail_suite_passes_with_both_checks_on(tmp_path):
    path = agent_copy(tmp_path, relevance_check_enabled=True, grounding_check_enabled=True)
    agent = load_agent(path)
    assert agent.enforcement.relevance_check_enabled and agent.enforcement.grounding_check_enabled
    reset_state(agent, TENANT_ID)
    report = run_suite(path, path.parent / "tests.yaml")
    assert report.passed, "\n" + format_report(report)
