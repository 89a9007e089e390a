"""`http` tools against a real HTTP server on 127.0.0.1 (started by the test in a thread): URL
templating, body mapping, secret headers that never leak, bounded retries, timeouts, bad answers,
and a whole turn that survives a slow tool."""

from __future__ import annotations

import json
import logging
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from focal.adapters.http_tools import HttpToolRunner
from focal.adapters.secrets import EnvSecretSource
from focal.adapters.tool_runner import KindToolRunner
from focal.errors import ToolError, ToolInputInvalid
from focal.models.agent import AgentConfig, Tool
from focal.models.turn import ToolCallContext, TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.tool_keys import idempotency_key
from focal.wiring import local_deps

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail"
SECRET = "s3cr3t-token-9f2c"
AGENT = AgentConfig(id="a", name="a")


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Script:
    """Per path: a list of (status, body text, delay seconds) answered in turn; the last one repeats."""

    routes: dict[str, list[tuple[int, str, float]]] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)

    def on(self, path: str, *answers: tuple[int, Any] | tuple[int, Any, float]) -> None:
        self.routes[path] = [
            (a[0], a[1] if isinstance(a[1], str) else json.dumps(a[1]), a[2] if len(a) > 2 else 0.0) for a in answers
        ]

    def answer(self, path: str) -> tuple[int, str, float]:
        queue = self.routes.get(path.split("?")[0]) or [(404, '{"error": "no route"}', 0.0)]
        return queue.pop(0) if len(queue) > 1 else queue[0]

    def hits(self, path: str) -> list[Received]:
        return [r for r in self.received if r.path.split("?")[0] == path]


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            script.received.append(Received(self.command, self.path, dict(self.headers.items()),
                                            json.loads(raw) if raw else None))
            status, text, delay = script.answer(self.path)
            time.sleep(delay)
            try:
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", "/elsewhere")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(text.encode())))
                self.end_headers()
                self.wfile.write(text.encode())
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

        do_GET = do_POST = do_PUT = do_DELETE = _handle

        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", script
    httpd.shutdown()
    httpd.server_close()


def http_tool(**overrides: Any) -> Tool:
    spec: dict[str, Any] = {
        "id": "lookup", "kind": "http", "url": "http://127.0.0.1:1/orders/{order_id}",
        "input": {"order_id": {"type": "id"}}, "output": {"status": "order_status"}, "timeout_s": 2,
    }
    spec.update(overrides)
    return Tool.model_validate(spec)


@pytest.fixture
def runner(monkeypatch) -> KindToolRunner:
    monkeypatch.setenv("FOCAL_SECRET_STORE_API", SECRET)
    sleeps: list[float] = []
    http = HttpToolRunner(EnvSecretSource(), sleep=sleeps.append)
    kind_runner = KindToolRunner(EnvSecretSource(), http=http)
    kind_runner.sleeps = sleeps  # type: ignore[attr-defined]
    return kind_runner


# --- requests ------------------------------------------------------------------------------------
def test_a_get_fills_and_escapes_the_url_and_sends_the_other_arguments_as_query(server, runner):
    base, script = server
    script.on("/orders/A%201%2F2%3Fx%26y", (200, {"status": "shipped", "eta": "2 days"}))
    tool = http_tool(url=base + "/orders/{order_id}", input={"order_id": {"type": "id"},
                                                            "verbose": {"type": "boolean", "required": False}})
    result = runner.run(AGENT, tool, {"order_id": "A 1/2?x&y", "verbose": "yes"})
    assert result == {"status": "shipped", "eta": "2 days"}
    [hit] = script.received
    assert hit.method == "GET" and hit.path == "/orders/A%201%2F2%3Fx%26y?verbose=true" and hit.body is None
    assert hit.headers["Accept"] == "application/json"


def test_a_post_maps_the_body_with_typed_values_constants_and_text(server, runner):
    base, script = server
    script.on("/refunds", (201, {"reference": "RF-1"}))
    tool = http_tool(
        url=base + "/refunds", method="POST",
        input={"order_id": {"type": "id"}, "amount": {"type": "money"}, "note": {"type": "string", "required": False}},
        body={"order": "{order_id}", "amount": "{amount}", "memo": "refund of {order_id}", "channel": "chat",
              "meta": {"source": "focal", "tags": ["{order_id}", 1]}, "note": "{note}"},
    )
    assert runner.run(AGENT, tool, {"order_id": "A1001", "amount": "$30.50"}) == {"reference": "RF-1"}
    [hit] = script.received
    assert hit.method == "POST" and hit.headers["Content-Type"] == "application/json"
    # typed value kept, text filled, constants as written; the absent optional argument's key is left out
    assert hit.body == {"order": "A1001", "amount": 30.5, "memo": "refund of A1001", "channel": "chat",
                        "meta": {"source": "focal", "tags": ["A1001", 1]}}


def test_a_post_without_a_body_mapping_sends_every_argument(server, runner):
    base, script = server
    script.on("/orders", (200, {}))
    tool = http_tool(url=base + "/orders", method="POST",
                     input={"order_id": {"type": "id"}, "quantity": {"type": "integer"}})
    assert runner.run(AGENT, tool, {"order_id": "A1", "quantity": "3"}) == {}
    assert script.received[0].body == {"order_id": "A1", "quantity": 3}


def test_the_secret_header_reaches_the_server_and_nothing_else(server, runner, caplog):
    base, script = server
    caplog.set_level(logging.DEBUG)
    script.on("/orders/A1", (200, {"status": "shipped"}))
    tool = http_tool(url=base + "/orders/{order_id}",
                     headers={"Authorization": "Bearer ${secret:store_api}", "X-Client": "focal"})
    assert runner.run(AGENT, tool, {"order_id": "A1"}) == {"status": "shipped"}
    assert script.received[0].headers["Authorization"] == f"Bearer {SECRET}"
    assert script.received[0].headers["X-Client"] == "focal"
    assert SECRET not in caplog.text and "lookup" in caplog.text  # the call was logged, the secret not


def test_a_missing_secret_is_a_tool_error_naming_it_and_nothing_is_sent(server, runner):
    base, script = server
    tool = http_tool(url=base + "/orders/{order_id}", headers={"X-Key": "${secret:nope}"})
    with pytest.raises(ToolError, match="secret 'nope' is not available"):
        runner.run(AGENT, tool, {"order_id": "A1"})
    assert script.received == []


def test_the_input_is_validated_before_any_call(server, runner):
    base, script = server
    tool = http_tool(url=base + "/orders/{order_id}", input={"order_id": {"type": "id"}, "quantity": {"type": "integer"}})
    with pytest.raises(ToolInputInvalid, match="argument 'quantity' must be an integer") as caught:
        runner.run(AGENT, tool, {"order_id": "A1", "quantity": "12abc"})
    assert caught.value.argument == "quantity" and "12abc" not in str(caught.value)
    with pytest.raises(ToolInputInvalid, match="argument 'quantity' is required"):
        runner.run(AGENT, tool, {"order_id": "A1"})
    with pytest.raises(ToolInputInvalid, match="argument 'other' is not an input of this tool"):
        runner.run(AGENT, tool, {"order_id": "A1", "quantity": 1, "other": "x"})
    assert script.received == []


# --- failures and retries ------------------------------------------------------------------------
def test_a_500_then_success_is_retried_for_a_read_only_tool(server, runner):
    base, script = server
    script.on("/orders/A1", (500, {"error": "boom"}), (200, {"status": "shipped"}))
    tool = http_tool(url=base + "/orders/{order_id}", retries=2)
    assert runner.run(AGENT, tool, {"order_id": "A1"}) == {"status": "shipped"}
    assert len(script.hits("/orders/A1")) == 2
    assert len(runner.sleeps) == 1 and 0 < runner.sleeps[0] <= 2.0  # one jittered backoff


def test_retries_are_bounded_and_the_error_says_how_many(server, runner):
    base, script = server
    script.on("/orders/A1", (503, "unavailable"))
    tool = http_tool(url=base + "/orders/{order_id}", retries=3)
    with pytest.raises(ToolError, match=r"HTTP 503 \(after 4 attempts\)"):
        runner.run(AGENT, tool, {"order_id": "A1"})
    assert len(script.hits("/orders/A1")) == 4
    assert len(runner.sleeps) == 3 and all(0 < s <= 2.0 for s in runner.sleeps)  # jittered, capped


def test_a_side_effecting_tool_is_not_retried_unless_idempotent(server, runner):
    base, script = server
    script.on("/refunds", (500, {}), (200, {"reference": "RF-1"}))
    tool = http_tool(url=base + "/refunds", method="POST", retries=2, side_effect=True)
    with pytest.raises(ToolError, match="HTTP 500"):
        runner.run(AGENT, tool, {"order_id": "A1"})
    assert len(script.hits("/refunds")) == 1
    idempotent = http_tool(url=base + "/refunds", method="POST", retries=2, side_effect=True, idempotent=True)
    assert runner.run(AGENT, idempotent, {"order_id": "A1"}) == {"reference": "RF-1"}
    assert len(script.hits("/refunds")) == 2


def header(hit: Received, name: str) -> str | None:
    return next((v for k, v in hit.headers.items() if k.lower() == name.lower()), None)


def test_a_side_effecting_call_sends_its_idempotency_key_on_every_attempt_and_never_logs_it(server, runner, caplog):
    base, script = server
    caplog.set_level(logging.DEBUG)
    script.on("/refunds", (503, {}), (201, {"reference": "RF-1"}))
    key = idempotency_key("t", "s", "1", "lookup", {"order_id": "A1"})
    context = ToolCallContext(tenant_id="t", session_id="s", turn_id="1", idempotency_key=key)
    tool = http_tool(url=base + "/refunds", method="POST", retries=1, side_effect=True, idempotent=True,
                     headers={"Idempotency-Key": "constant-from-the-file"})
    assert runner.run(AGENT, tool, {"order_id": "A1"}, context) == {"reference": "RF-1"}
    assert [header(hit, "Idempotency-Key") for hit in script.hits("/refunds")] == [key, key]
    assert script.received[0].body == {"order_id": "A1"}  # the key is a header, not an argument
    assert key not in caplog.text and "lookup" in caplog.text


def test_a_call_without_a_key_sends_no_idempotency_header(server, runner):
    base, script = server
    script.on("/orders/A1", (200, {"status": "shipped"}))
    context = ToolCallContext(tenant_id="t", session_id="s", turn_id="1")
    runner.run(AGENT, http_tool(url=base + "/orders/{order_id}"), {"order_id": "A1"}, context)
    runner.run(AGENT, http_tool(url=base + "/orders/{order_id}"), {"order_id": "A1"})
    assert [header(hit, "Idempotency-Key") for hit in script.received] == [None, None]


def test_a_4xx_is_an_error_at_once_without_the_response_text(server, runner):
    base, script = server
    script.on("/orders/A1", (404, {"error": "order A1 of jane@example.com not found"}))
    tool = http_tool(url=base + "/orders/{order_id}", retries=3)
    with pytest.raises(ToolError) as caught:
        runner.run(AGENT, tool, {"order_id": "A1"})
    assert str(caught.value) == "tool 'lookup': HTTP 404"
    assert len(script.hits("/orders/A1")) == 1


def test_a_slow_server_is_a_timeout(server, runner):
    base, script = server
    script.on("/orders/A1", (200, {"status": "late"}, 1.0))
    tool = http_tool(url=base + "/orders/{order_id}", timeout_s=0.2)
    with pytest.raises(ToolError, match=r"timed out after 0.2s"):  # raised only when the timeout fired
        runner.run(AGENT, tool, {"order_id": "A1"})


@pytest.mark.parametrize(("text", "message"), [
    ("<html>oops</html>", "response is not valid JSON"),
    ('["a", "b"]', "response is JSON list, expected an object"),
])
def test_an_answer_that_is_not_a_json_object_is_a_tool_error(server, runner, text, message):
    base, script = server
    script.on("/orders/A1", (200, text))
    with pytest.raises(ToolError, match=message):
        runner.run(AGENT, http_tool(url=base + "/orders/{order_id}"), {"order_id": "A1"})


def test_redirects_are_not_followed(server, runner):
    base, script = server
    script.on("/orders/A1", (302, ""))
    tool = http_tool(url=base + "/orders/{order_id}", headers={"Authorization": "${secret:store_api}"})
    with pytest.raises(ToolError, match="HTTP 302 \\(redirects are not followed\\)"):
        runner.run(AGENT, tool, {"order_id": "A1"})
    assert script.hits("/elsewhere") == []


def test_private_hosts_can_be_refused(server):
    base, script = server
    strict = KindToolRunner(EnvSecretSource(), allow_private_hosts=False)
    with pytest.raises(ToolError, match="non-public address"):
        strict.run(AGENT, http_tool(url=base + "/orders/{order_id}"), {"order_id": "A1"})
    assert script.received == []


def test_a_connection_refused_is_a_tool_error_with_nothing_sent():
    tool = http_tool(url="http://127.0.0.1:9/orders/{order_id}")  # discard port: nothing listens
    with pytest.raises(ToolError, match="connection refused") as raised:
        KindToolRunner(EnvSecretSource()).run(AGENT, tool, {"order_id": "A1"})
    assert type(raised.value) is ToolError  # refused before anything was sent: not an unknown outcome


# --- a whole turn --------------------------------------------------------------------------------
def retail_with_http_lookup(tmp_path: Path, base: str, **tool: Any) -> LocalRunner:
    """The retail example with `lookup_order` served over HTTP instead of Python."""
    folder = tmp_path / "retail"
    shutil.copytree(RETAIL, folder)
    raw = yaml.safe_load((folder / "agent.yaml").read_text())
    [lookup] = [t for t in raw["tools"] if t["id"] == "lookup_order"]
    del lookup["entrypoint"]
    lookup.update({"kind": "http", "url": base + "/orders/{order_id}",
                   "headers": {"Authorization": "Bearer ${secret:store_api}"}, **tool})
    (folder / "agent.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    return LocalRunner(local_deps(folder / "agent.yaml", tmp_path / "focal.db"))


def order_status_turn(runner: LocalRunner):
    return runner.turn(TurnRequest(tenant_id="t", agent_id="retail", session_id="s", turn_id="1",
                                   message="Can you check the status of order A1003?"))


def test_a_turn_uses_the_http_tool_and_never_shows_the_secret(server, tmp_path, monkeypatch, caplog):
    base, script = server
    monkeypatch.setenv("FOCAL_SECRET_STORE_API", SECRET)
    caplog.set_level(logging.DEBUG)
    script.on("/orders/A1003", (200, {"found": True, "status": "shipped", "total": 12.5, "item": "Desk lamp"}))
    runner = retail_with_http_lookup(tmp_path, base)
    result = order_status_turn(runner)
    assert script.received[0].headers["Authorization"] == f"Bearer {SECRET}"
    assert [(t["tool_id"], t["status"]) for t in result.tool_calls] == [("lookup_order", "ok")]
    assert "Desk lamp" in result.response and "shipped" in result.response
    record = runner.deps.turns.list_for_session("t", "retail", "s")[0]
    for text in (result.model_dump_json(), record.model_dump_json(), caplog.text):
        assert SECRET not in text


def test_a_timed_out_http_tool_gives_a_structured_error_and_the_turn_still_answers(server, tmp_path, monkeypatch):
    base, script = server
    monkeypatch.setenv("FOCAL_SECRET_STORE_API", SECRET)
    script.on("/orders/A1003", (200, {"found": True, "status": "late"}, 1.5))
    runner = retail_with_http_lookup(tmp_path, base, timeout_s=0.3)
    result = order_status_turn(runner)
    assert result.success and result.response, result.error
    [call] = result.tool_calls
    assert call["tool_id"] == "lookup_order" and call["status"] == "error"
    assert call["error"] == "tool 'lookup_order' timed out after 0.3s"
    assert "late" not in result.response
    assert "couldn't complete that step" in result.response
