"""A tool's answer must fit the declared types of the variables it fills before anything of it is kept
or shown: a list where a text is declared, an object where an enum is, "yes" where a yes/no is, are a
failed call (`tool_output_invalid`, naming the output), never a session variable, never in the answer
("Order B2004 (['a', 'a', …]) is {'x': 1}."). Whole turns on a small agent written for the test
(tests/security/typed_outputs_agent), with its tool as python and as http (a real local server).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from recording_http_server import RecordingServer

from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

AGENT = Path(__file__).resolve().parent / "typed_outputs_agent"
GOOD = {"item": "Desk lamp", "status": "shipped", "total": "12.50", "count": 2, "paid": True}
OUTPUT_VARIABLES = ("order_item", "order_status", "order_total", "order_count", "order_paid")


def agent_folder(tmp_path: Path, answer: dict[str, Any]) -> Path:
    folder = tmp_path / "orders"
    shutil.copytree(AGENT, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "answer.json").write_text(json.dumps(answer), encoding="utf-8")
    return folder


def ask(runner: LocalRunner) -> TurnResult:
    return runner.turn(TurnRequest(tenant_id="t1", agent_id="orders", session_id="s1", customer_id="c-1",
                                   turn_id="t1", message="Where is my order B2004?"))


def session_variables(runner: LocalRunner) -> dict[str, Any]:
    session = runner.deps.sessions.get("t1", "orders", "s1")
    assert session is not None
    return session.variables


def test_an_answer_of_the_declared_types_is_shown_with_an_exact_numeric_text_as_a_number(tmp_path):
    runner = LocalRunner(local_deps(agent_folder(tmp_path, GOOD) / "agent.yaml", tmp_path / "focal.db"))
    result = ask(runner)
    [call] = result.tool_calls
    assert call["status"] == "ok" and call["error_code"] is None
    assert result.response == "Order B2004 (Desk lamp) is shipped: 2 item(s), 12.50 in total."
    assert {k: session_variables(runner)[k] for k in OUTPUT_VARIABLES} == {
        "order_item": "Desk lamp", "order_status": "shipped", "order_total": 12.5, "order_count": 2, "order_paid": True}


WRONG = [
    ("item", ["a", "a", "a"], "must be a text (string), not a list"),
    ("item", {"x": 1}, "must be a text (string), not an object"),
    ("item", True, "must be a text (string), not a yes/no"),
    ("status", {"x": 1}, "must be one value (enum), not an object"),
    ("status", "lost", "is not one of the field's allowed values"),
    ("total", [12.5], "must be a number (money), not a list"),
    ("total", "$12.50", "must be a number (money), not a text"),
    ("total", "12.5abc", "must be a number (money), not a text"),
    ("count", 2.5, "must be an integer, not a number"),
    ("count", "2 items", "must be an integer, not a text"),
    ("paid", "yes", "must be true or false, not a text"),
    ("paid", 1, "must be true or false, not a number"),
    ("paid", "no way", "must be true or false, not a text"),
]


def assert_refused(runner: LocalRunner, result: TurnResult, key: str, value: Any, why: str) -> None:
    [call] = result.tool_calls
    variable = f"order_{key}"
    assert call["status"] == "error" and call["error_code"] == "tool_output_invalid"
    assert call["error"] == f"tool 'lookup_order': output '{key}' (variable '{variable}') {why}"
    assert call["outputs"] == {}
    assert not set(OUTPUT_VARIABLES) & set(session_variables(runner))  # nothing of the answer was kept
    assert "couldn't complete that step" in result.response
    for shown in ("[", "{", "Desk lamp", str(value)):
        assert shown not in result.response


@pytest.mark.parametrize(("key", "value", "why"), WRONG)
def test_a_python_tool_answering_a_wrong_type_fails_and_nothing_reaches_the_session_or_the_answer(tmp_path, key, value, why):
    runner = LocalRunner(local_deps(agent_folder(tmp_path, {**GOOD, key: value}) / "agent.yaml", tmp_path / "focal.db"))
    assert_refused(runner, ask(runner), key, value, why)


@pytest.fixture
def order_service() -> Iterator[RecordingServer]:
    server = RecordingServer({**GOOD, "item": ["a", "a", "a"], "status": {"x": 1}})
    yield server
    server.close()


def test_an_http_tool_answering_a_wrong_type_fails_the_same_way(tmp_path, order_service):
    folder = agent_folder(tmp_path, GOOD)
    raw = yaml.safe_load((folder / "agent.yaml").read_text(encoding="utf-8"))
    [lookup] = raw["tools"]
    del lookup["entrypoint"]
    lookup.update({"kind": "http", "url": order_service.base + "/orders/{order_id}"})
    (folder / "agent.yaml").write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    runner = LocalRunner(local_deps(folder / "agent.yaml", tmp_path / "focal.db"))
    result = ask(runner)
    assert order_service.paths == ["/orders/B2004"]  # the service answered; its answer is what is refused
    assert_refused(runner, result, "item", ["a", "a", "a"], "must be a text (string), not a list")
