"""Customer text, profile values, order numbers and secrets never reach the logs.

A whole conversation runs through the real Lambda stage handlers (functions/handlers/<stage>.py,
Powertools Logger with its injected Lambda context), in the order and with the jumps of the
pipeline definition, with a stage failure caught into the fallback handler as the state machine's
Catch does. The retail agent's `lookup_order` is an http tool on a loopback server with a secret
header; the customer has a stored profile; the conversation checks an order, then asks for, confirms
and gets a refund (issue_refund runs). Everything written to stdout/stderr (Powertools writes JSON
to stdout) and every record of the `logging` tree is captured and searched. Even
POWERTOOLS_LOGGER_LOG_EVENT=true (an operator's debugging switch) must not make the handlers log events.
"""

from __future__ import annotations

import importlib
import io
import json
import logging
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from example_tools import reset_state
from handler_walk import run_turn as walk

from focal.turn.definition import STAGE_NAMES

ROOT = Path(__file__).resolve().parents[2]
RETAIL = ROOT / "examples" / "retail"
SECRET = "tok-7Hq2-never-log-me"
PROFILE_VALUE = "Zephyrine-Quokka-Street 77"
MESSAGES = [
    "Can you check the status of order A1003? My name is Ottoline Brackwater.",
    "I want a refund for my order",
    "It's A1001",
    "yes",
    "my card ends in 4242, please call me at +1 555 0199 about order A1002",
]


class Ctx:
    function_name, memory_limit_in_mb, aws_request_id = "focal-stage", 1024, "req-logs"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:focal-stage"


@pytest.fixture
def orders_server() -> Iterator[tuple[str, list[dict[str, str]]]]:
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            seen.append(dict(self.headers.items()))
            # A1001's real total: issue_refund checks the amount it was given
            body = json.dumps({"found": True, "status": "shipped", "total": 30.0, "item": "Desk lamp"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def handlers_env(tmp_path, monkeypatch, orders_server):
    """The stage Lambdas' environment: the retail agent (lookup_order over HTTP with a secret header),
    SQLite stores in tmp, the numpy index, offline components."""
    from focal import settings as settings_module
    from focal import wiring

    base, seen = orders_server
    folder = tmp_path / "retail"
    shutil.copytree(RETAIL, folder)
    # The example tools act on the authenticated customer's own orders only: here they are all cust-9's.
    orders = json.loads((folder / "orders.json").read_text())
    (folder / "orders.json").write_text(json.dumps({k: {**v, "customer_id": "cust-9"} for k, v in orders.items()}))
    raw = yaml.safe_load((folder / "agent.yaml").read_text())
    [lookup] = [t for t in raw["tools"] if t["id"] == "lookup_order"]
    del lookup["entrypoint"]
    lookup.update({"kind": "http", "url": base + "/orders/{order_id}",
                   "headers": {"Authorization": "Bearer ${secret:store_api}"}})
    (folder / "agent.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    for key, value in {"FOCAL_STORE": "sqlite", "FOCAL_CONFIG_SOURCE": "file",
                       "FOCAL_AGENT_FILE": str(folder / "agent.yaml"), "FOCAL_DB_PATH": str(tmp_path / "focal.db"),
                       "FOCAL_SECRET_STORE_API": SECRET, "POWERTOOLS_LOGGER_LOG_EVENT": "true",
                       "POWERTOOLS_SERVICE_NAME": "focal"}.items():
        monkeypatch.setenv(key, value)
    settings_module.get_settings.cache_clear()
    wiring.deps_from_env.cache_clear()
    deps = wiring.deps_from_env()
    reset_state(deps.configs.get_agent("acme", "retail"), "acme")
    for name in (*STAGE_NAMES, "fallback"):  # the handlers' Powertools Logger exists before logs are captured
        importlib.import_module(f"handlers.{name}")
    yield deps, seen
    settings_module.get_settings.cache_clear()
    wiring.deps_from_env.cache_clear()


def run_turn(n: int, message: str, failing: str | None = None) -> dict[str, Any]:
    """One turn through the stage handlers as the state machine runs them (Catch → fallback handler)."""
    return walk({"tenant_id": "acme", "agent_id": "retail", "session_id": "s-logs", "customer_id": "cust-9",
                 "turn_id": f"t-{n}", "message": message}, failing, Ctx())


@pytest.fixture
def log_streams() -> Iterator[io.StringIO]:
    """Every StreamHandler already attached anywhere in the logging tree (Powertools' JSON handler on
    the "focal" logger holds the sys.stdout of the moment it was created, maybe another test's
    capture) writes into one buffer for the test's duration."""
    from _pytest.logging import LogCaptureHandler

    buffer = io.StringIO()
    loggers = [logging.getLogger(), *(l for l in logging.Logger.manager.loggerDict.values() if isinstance(l, logging.Logger))]
    swapped = [(h, h.setStream(buffer)) for lg in loggers for h in lg.handlers
               if isinstance(h, logging.StreamHandler) and not isinstance(h, LogCaptureHandler)
               and not isinstance(h, logging.FileHandler)]
    yield buffer
    for handler, stream in swapped:
        handler.setStream(stream)


def test_a_whole_conversation_logs_no_customer_data_and_no_secret(handlers_env, log_streams, capfd, caplog):
    from focal.models.session import CustomerProfile

    deps, seen = handlers_env
    deps.profiles.save(CustomerProfile(tenant_id="acme", agent_id="retail", customer_id="cust-9",
                                       fields={"is_premium": True, "home_address": PROFILE_VALUE}))
    caplog.set_level(logging.DEBUG, logger="focal")  # the engine's loggers, Powertools' "focal" included
    caplog.set_level(logging.INFO)  # the root, as a Lambda runs it
    capfd.readouterr()

    results = [run_turn(n, message) for n, message in enumerate(MESSAGES[:4])]
    results.append(run_turn(4, MESSAGES[4], failing="generate"))
    out, err = capfd.readouterr()

    # The conversation happened: the http tool got the secret, the refund ran, the failure was caught.
    assert seen and seen[0]["Authorization"] == f"Bearer {SECRET}"
    assert [t["tool_id"] for t in results[0]["tool_calls"]] == ["lookup_order"] and "Desk lamp" in results[0]["response"]
    assert "issue_refund" in [t["tool_id"] for t in results[3]["tool_calls"] if t["status"] == "ok"]
    assert results[4]["execution_path"] == "fallback"
    assert len(deps.turns.list_for_session("acme", "retail", "s-logs")) == 5

    streams = log_streams.getvalue()
    # Every record's text fields; not its numbers (thread id, pid, timestamps), which may spell "4242" by chance.
    records = [{k: v for k, v in r.__dict__.items() if not isinstance(v, int | float)} for r in caplog.records]
    logs = "\n".join([streams, out, err, caplog.text, *(json.dumps(r, default=str) for r in records)])
    assert "turn caught into the fallback" in logs  # the capture does see the handlers' logs
    assert '"function_request_id":"req-logs"' in (streams + out).replace(" ", "")  # Powertools' JSON lines

    forbidden = [SECRET, PROFILE_VALUE, "Zephyrine", "Ottoline", "Brackwater", "A1001", "A1002", "A1003",
                 "4242", "555 0199", "Desk lamp", *(m for m in MESSAGES if len(m) > 3)]
    leaked = [value for value in forbidden if value in logs]
    assert leaked == [], f"found in the logs: {leaked}"
