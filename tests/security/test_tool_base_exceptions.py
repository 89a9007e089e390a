"""A tool that raises SystemExit, KeyboardInterrupt, GeneratorExit or a BaseException class of its own.

Before: the exception (not an `Exception`) went through the runner, the tools stage and the local runner's
Catch: a plain-text HTTP 500, no turn recorded, and the turn id's idempotency claim left "in progress"
(a retry answered 409 for five minutes). Now whatever tool code raises is that call's failure: the turn
completes with a structured answer, is recorded like any turn with a failed tool, and a retry of the same
turn id answers with the recorded result. Any exception escaping a stage ends in the fallback the same way.
"""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from http_client import http_call

from focal.adapters.python_tools import PythonToolRunner
from focal.cli.serve import LocalApiKeyStore, ServeSettings, build_api, serving
from focal.errors import ToolError
from focal.models.agent import AgentConfig, Tool
from focal.models.turn import ToolCallContext, TurnRequest, TurnResult
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail"
KEY = "base-exception-key"
RAISED = {  # what the tool's body raises → the exception's name in the call's error
    "system_exit": ("raise SystemExit(3)", "SystemExit"),
    "keyboard_interrupt": ("raise KeyboardInterrupt('stop')", "KeyboardInterrupt"),
    "generator_exit": ("raise GeneratorExit()", "GeneratorExit"),
    "own_base_exception": ("raise Abort('the tool gave up')", "Abort"),
}
OWN_CLASS = "\n\nclass Abort(BaseException):\n    pass\n"
LOOKUP = "def lookup_order(order_id: str, customer_id: str | None = None) -> dict[str, Any]:\n"


def retail_whose_lookup_raises(folder: Path, statement: str) -> Path:
    """A copy of the retail agent whose `lookup_order` raises as its first statement."""
    shutil.copytree(RETAIL, folder, ignore=shutil.ignore_patterns("__pycache__"))
    tools = folder / "tools.py"
    source = tools.read_text(encoding="utf-8")
    assert LOOKUP in source
    tools.write_text(source.replace(LOOKUP, f"{LOOKUP}    {statement}\n") + OWN_CLASS, encoding="utf-8")
    return folder / "agent.yaml"


def whole_turn(runner: LocalRunner, turn_id: str) -> TurnResult:
    request = TurnRequest(tenant_id="acme", agent_id="retail", session_id="s1", customer_id="c-100",
                          turn_id=turn_id, message="Where is my order A1001?")
    try:
        return runner.turn(request)
    except BaseException as exc:  # noqa: BLE001 - what the test is about: nothing may leave the turn
        pytest.fail(f"the turn raised {exc!r} instead of answering")


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same answer; timings are each execution's own (a replay runs sensor and persist only)."""
    return {k: v for k, v in a.items() if k != "timings_ms"} == {k: v for k, v in b.items() if k != "timings_ms"}


@pytest.mark.parametrize("case", sorted(RAISED))
def test_the_runner_answers_a_tool_failure_and_the_worker_goes_on(case, tmp_path):
    statement, name = RAISED[case]
    (tmp_path / "tools.py").write_text(
        f"def bad():\n    {statement}\n\n\ndef good():\n    return {{'ok': True}}\n{OWN_CLASS}", encoding="utf-8")
    agent = AgentConfig(id="a", name="a", base_dir=str(tmp_path))
    context = ToolCallContext(tenant_id="acme", session_id="s", turn_id="1")
    runner = PythonToolRunner()
    with pytest.raises(ToolError, match=f"tool 'bad' failed: {name}"):
        runner.run(agent, Tool(id="bad", entrypoint="tools.py:bad"), {}, context)
    assert runner.run(agent, Tool(id="good", entrypoint="tools.py:good"), {}, context) == {"ok": True}


def test_a_tool_that_ends_its_own_process_is_a_tool_failure_and_the_next_call_runs(tmp_path):
    (tmp_path / "tools.py").write_text(
        "import os\n\n\ndef bad():\n    os._exit(7)\n\n\ndef good():\n    return {'ok': True}\n", encoding="utf-8")
    agent = AgentConfig(id="a", name="a", base_dir=str(tmp_path))
    context = ToolCallContext(tenant_id="acme", session_id="s", turn_id="1")
    runner = PythonToolRunner()
    with pytest.raises(ToolError, match="tool 'bad' failed: its worker process stopped"):
        runner.run(agent, Tool(id="bad", entrypoint="tools.py:bad"), {}, context)
    assert runner.run(agent, Tool(id="good", entrypoint="tools.py:good"), {}, context) == {"ok": True}


@pytest.mark.parametrize("case", sorted(RAISED))
def test_a_whole_turn_answers_records_and_replays(case, tmp_path):
    statement, name = RAISED[case]
    deps = local_deps(retail_whose_lookup_raises(tmp_path / "retail", statement), tmp_path / "focal.db")
    runner = LocalRunner(deps)
    first = whole_turn(runner, "turn-1")
    [call] = first.tool_calls
    assert call["tool_id"] == "lookup_order" and call["status"] == "error" and name in call["error"]
    assert first.response and "persist" in runner.visited  # answered, and through the ordinary persist stage
    [record] = deps.turns.list_for_session("acme", "retail", "s1")
    assert record.turn_id == "turn-1" and record.result.tool_calls == first.tool_calls

    again = whole_turn(runner, "turn-1")  # the claim was completed: the recorded answer, not "in progress"
    assert same(again.model_dump(mode="json"), first.model_dump(mode="json"))
    assert len(deps.turns.list_for_session("acme", "retail", "s1")) == 1


@pytest.mark.parametrize("case", sorted(RAISED))
def test_the_local_http_server_answers_records_and_replays(case, tmp_path):
    statement, name = RAISED[case]
    agent_file = retail_whose_lookup_raises(tmp_path / "retail", statement)
    api = build_api([str(agent_file)], str(tmp_path / "focal.db"), None, LocalApiKeyStore({KEY: "acme"}))
    path = "/v1/agents/retail/sessions/s1/turns"
    body = {"message": "Where is my order A1001?", "turn_id": "turn-1"}
    with serving(api, settings=ServeSettings(rate_per_key=0)) as base:
        status, first, _ = http_call(base, "POST", path, body, KEY)
        assert status == 200, first
        [call] = first["tool_calls"]
        assert call["status"] == "error" and name in call["error"] and first["response"]
        status, again, _ = http_call(base, "POST", path, body, KEY)
        assert status == 200, again  # not 409 turn_in_progress
        assert same(again, first)
    [record] = api.deps.turns.list_for_session("acme", "retail", "s1")
    assert record.turn_id == "turn-1"


class Interrupted(BaseException):
    """Raised by the model provider below: neither an Exception nor a signal of this process."""


class ProviderThatRaises:
    """The model provider's boundary: every generation call raises a BaseException."""
    spends_no_time = True  # scripted: read the same on a loaded machine (focal.turn.budget)

    def available(self, purpose: str) -> bool:
        return purpose == "generate"

    def complete(self, purpose, messages, json_schema=None):
        raise Interrupted("the provider's client gave up")


def test_any_exception_escaping_a_stage_ends_in_a_recorded_fallback_and_a_completed_claim(tmp_path):
    deps = local_deps(RETAIL / "agent.yaml", tmp_path / "focal.db")
    deps.model = ProviderThatRaises()
    runner = LocalRunner(deps)
    request = TurnRequest(tenant_id="acme", agent_id="retail", session_id="s1", customer_id="c-100",
                          turn_id="turn-1", message="How long does shipping usually take?")
    try:
        first = runner.turn(request)
    except BaseException as exc:  # noqa: BLE001
        pytest.fail(f"the turn raised {exc!r} instead of answering")
    assert runner.visited[-1] == "fallback" and first.execution_path == "fallback"
    assert first.error["code"] == "stage_failed:Interrupted" and first.response
    [record] = deps.turns.list_for_session("acme", "retail", "s1")
    assert record.result.error == first.error
    again = runner.turn(request)
    assert same(again.model_dump(mode="json"), first.model_dump(mode="json"))


class InProcessRunnerThatRaises:
    """A tool runner of the deployment's own that runs tool code in the engine's process (the ToolRunner port)."""

    def run(self, agent, tool, arguments, context=None):
        raise Interrupted("the tool gave up")


def test_a_tool_runner_raising_a_base_exception_is_that_calls_failure_not_the_turns(tmp_path):
    deps = local_deps(RETAIL / "agent.yaml", tmp_path / "focal.db")
    deps.tools = InProcessRunnerThatRaises()
    runner = LocalRunner(deps)
    first = whole_turn(runner, "turn-1")
    [call] = first.tool_calls
    assert call["status"] == "error" and call["error"] == "tool 'lookup_order' failed: Interrupted"
    assert "fallback" not in runner.visited and first.response
    [record] = deps.turns.list_for_session("acme", "retail", "s1")
    assert record.result.tool_calls == first.tool_calls
    assert same(whole_turn(runner, "turn-1").model_dump(mode="json"), first.model_dump(mode="json"))


class InProcessRunnerInterrupted:
    def run(self, agent, tool, arguments, context=None):
        raise KeyboardInterrupt  # as Ctrl-C arrives while the main thread is inside a tool


def test_ctrl_c_in_the_main_thread_still_ends_the_process_after_the_turn_is_recorded(tmp_path):
    deps = local_deps(RETAIL / "agent.yaml", tmp_path / "focal.db")
    deps.tools = InProcessRunnerInterrupted()
    runner = LocalRunner(deps)
    with pytest.raises(KeyboardInterrupt):
        runner.turn(TurnRequest(tenant_id="acme", agent_id="retail", session_id="s1", customer_id="c-100",
                                turn_id="turn-1", message="Where is my order A1001?"))
    [record] = deps.turns.list_for_session("acme", "retail", "s1")
    assert record.result.error["code"] == "stage_failed:KeyboardInterrupt"
    again = whole_turn(LocalRunner(deps), "turn-1")  # the claim was completed with the fallback's answer
    assert same(again.model_dump(mode="json"), record.result.model_dump(mode="json"))


def test_the_same_interrupt_in_a_request_thread_is_that_calls_failure(tmp_path):
    deps = local_deps(RETAIL / "agent.yaml", tmp_path / "focal.db")
    deps.tools = InProcessRunnerInterrupted()
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(whole_turn, LocalRunner(deps), "turn-1").result(timeout=120)
    [call] = result.tool_calls
    assert call["status"] == "error" and call["error"] == "tool 'lookup_order' failed: KeyboardInterrupt"
