"""`focal serve` against hostile and careless clients (issue 13, "focal serve").

A real uvicorn server on 127.0.0.1, port 0, in a thread, with short deadlines (1 s) so slow clients
are cut off quickly. Each test names what the ThreadingHTTPServer it replaced did instead.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from http_client import http_call

from focal.auth import Principal
from focal.cli.serve import LocalApiKeyStore, ServeSettings, build_api, serving
from focal.customer_tokens import issue

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "retail" / "agent.yaml"
KEY, OTHER_KEY = "hostile-key-acme", "hostile-key-acme-2"
SECRET = "hostile-customer-token-secret-0123"
TURNS = "/v1/agents/retail/sessions/{session}/turns"
FAST = ServeSettings(head_timeout=1.0, body_timeout=1.0, rate_per_key=0)


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    keys = LocalApiKeyStore({KEY: "acme", OTHER_KEY: Principal("acme", frozenset({"chat", "approve"}))})
    return build_api([str(AGENT)], str(tmp_path_factory.mktemp("hostile") / "focal.db"), None, keys,
                     secret_for=lambda tenant: SECRET)


@pytest.fixture(scope="module")
def access_log() -> list[dict[str, Any]]:
    return []


@pytest.fixture(scope="module")
def server(api, access_log):
    with serving(api, settings=FAST, access_log=access_log.append) as url:
        yield url, int(url.rsplit(":", 1)[1])


def call(base: str, method: str, path: str, body: Any = None, key: str | None = KEY,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any], dict[str, str]]:
    return http_call(base, method, path, body, key, headers)


def raw(port: int, *parts: bytes, pause: float = 0.0, timeout: float = 10.0) -> tuple[int, dict[str, str], dict[str, Any]]:
    """Send `parts` on a fresh connection (pausing between them; no more once the server answers),
    then read the answer until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        for part in parts:
            if select.select([sock], [], [], 0)[0]:
                break  # answered already: sending more would only earn a reset
            sock.sendall(part)
            select.select([sock], [], [], pause)
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except ConnectionResetError:
            pass
    return parse(data)


def parse(data: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, json.loads(body)


def assert_json_error(status: int, doc: dict[str, Any], expected: int, code: str) -> None:
    assert status == expected, doc
    assert doc["success"] is False and doc["error"]["code"] == code and doc["error"]["request_id"], doc


# --- floods and slow clients ----------------------------------------------------------------------


def test_200_concurrent_connections_are_all_answered(server):
    """Old server: listen backlog 5; 137 of 200 simultaneous requests were reset."""
    base, _ = server
    start = threading.Barrier(200)

    def one(n: int) -> int | str:
        start.wait()
        try:
            return call(base, "POST", TURNS.format(session=f"flood-{n}"), {"message": "hello", "turn_id": f"f{n}"})[0]
        except OSError as exc:
            return type(exc).__name__

    with ThreadPoolExecutor(max_workers=200) as pool:
        outcomes = list(pool.map(one, range(200)))
    assert outcomes == [200] * 200, {o: outcomes.count(o) for o in set(outcomes)}


def _slow_client(port: int, first: bytes, drip: bytes, seconds: float = 120.0) -> tuple[float, bytes]:
    """Send `first`, then `drip` every 0.2 s; (seconds until the server closed, what it sent back).

    `seconds` only bounds a server that never cuts the client off (then inf): it is a failure guard,
    far above the server's 1 s timeouts, so a loaded machine cannot make a good server look bad."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=seconds + 2) as sock:
        sock.sendall(first)
        data = b""
        while time.monotonic() - started < seconds:
            readable, _, _ = select.select([sock], [], [], 0.2)
            if readable:
                try:
                    chunk = sock.recv(65536)
                except ConnectionResetError:
                    return time.monotonic() - started, data
                if not chunk:
                    return time.monotonic() - started, data
                data += chunk
                continue
            if not data:
                try:
                    sock.sendall(drip)
                except OSError:
                    pass
    return float("inf"), data


def test_slow_loris_clients_are_cut_off_while_others_are_served(server):
    """Old server: no read timeout; every slow client held a thread for as long as it liked."""
    base, port = server
    slow_head = (b"POST " + TURNS.format(session="loris").encode() + b" HTTP/1.1\r\nHost: x\r\n", b"X-Pad: 1\r\n")
    slow_body = (b"POST " + TURNS.format(session="loris").encode() + b" HTTP/1.1\r\nHost: x\r\nx-api-key: "
                 + KEY.encode() + b"\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{", b" ")
    with ThreadPoolExecutor(max_workers=16) as pool:
        slow = [pool.submit(_slow_client, port, *(slow_head if i % 2 else slow_body)) for i in range(12)]
        time.sleep(0.3)
        status, doc, _ = call(base, "POST", TURNS.format(session="patient"), {"message": "hello"})
        assert status == 200 and doc["success"] is True
        for future in slow:
            elapsed, data = future.result()
            assert elapsed != float("inf"), "a slow client was not cut off"
            status, headers, doc = parse(data)  # answered before the close (which lingers, so no reset eats it)
            assert_json_error(status, doc, 408, "request_timeout")
            assert headers["connection"] == "close"


def test_more_connections_than_the_limit_get_a_json_503_with_retry_after(api):
    with serving(api, settings=ServeSettings(limit_concurrency=2, rate_per_key=0)) as base:
        port = int(base.rsplit(":", 1)[1])
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
        try:
            time.sleep(0.2)
            status, headers, doc = raw(port, b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n")
        finally:
            for sock in idle:
                sock.close()
    assert_json_error(status, doc, 503, "overloaded")
    assert headers["retry-after"] == "1"


# --- oversized and malformed requests -------------------------------------------------------------


@pytest.mark.parametrize(("name", "parts", "expected", "code"), [
    ("one 20 KB header", (b"GET /openapi.json HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n",), 431,
     "headers_too_large"),
    ("17 KB of headers, unfinished", (b"GET /openapi.json HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 17_000,
                                      b"\r\n\r\n"), 431, "headers_too_large"),
    ("150 headers", (b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: 1\r\n" % i for i in range(150))
                     + b"\r\n",), 431, "headers_too_large"),
    ("a 9 KB URL", (b"GET /" + b"a" * 9_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",), 414, "uri_too_long"),
    ("a 17 KB URL, unfinished", (b"GET /" + b"a" * 17_000, b" HTTP/1.1\r\nHost: x\r\n\r\n"), 414, "uri_too_long"),
    ("a 3 MB body announced", (b"POST " + TURNS.format(session="big").encode() + b" HTTP/1.1\r\nHost: x\r\nx-api-key: "
                               + KEY.encode() + b"\r\ncontent-length: 3000000\r\n\r\n{",), 413, "payload_too_large"),
    ("a chunked body", (b"POST " + TURNS.format(session="c").encode() + b" HTTP/1.1\r\nHost: x\r\n"
                        b"transfer-encoding: chunked\r\n\r\n1\r\n{\r\n0\r\n\r\n",), 411, "length_required"),
    ("not HTTP", (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",), 400, "bad_request"),
    ("a request line without a version", (b"GET /openapi.json\r\n\r\n",), 400, "bad_request"),
])
def test_oversized_or_malformed_requests_get_json_errors(server, name, parts, expected, code):
    """Old server: Python's HTML pages for 400/414/431, and 20 KB heads were accepted."""
    _, port = server
    status, headers, doc = raw(port, *parts, pause=0.2)
    assert_json_error(status, doc, expected, code)
    assert headers["content-type"] == "application/json" and "server" not in headers


@pytest.mark.parametrize("path", [TURNS.format(session="deep"), "/v1/approvals/some-id"])
def test_3000_level_nested_json_is_a_json_400(server, path):
    """Old server: RecursionError in json.loads and an empty reply."""
    base, _ = server
    deep = {"message": "x", "nested": json.loads("[" * 60 + "]" * 60)}
    body = b'{"message": "x", "decision": ' + b"[" * 3000 + b"]" * 3000 + b"}"
    req = urllib.request.Request(base + path, data=body, method="POST",
                                 headers={"x-api-key": KEY, "content-type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(req, timeout=30)
    assert_json_error(caught.value.code, json.loads(caught.value.read()), 400, "bad_request")
    status, _, _ = call(base, "POST", TURNS.format(session="shallow"), deep)
    assert status == 200  # 60 levels are fine


# --- what a turn's outcome means in HTTP ----------------------------------------------------------


def test_unknown_agent_is_404(server):
    """Old server: 200 with success false (stage_failed:AgentNotFound)."""
    status, doc, _ = call(server[0], "POST", "/v1/agents/no-such-agent/sessions/s/turns", {"message": "hello"})
    assert_json_error(status, doc, 404, "agent_not_found")


def test_session_conflict_is_409(server, api, monkeypatch):
    """Old server: 200 with success false. Here the first save of the session loses a (simulated) race."""
    from focal.errors import VersionConflict

    real_save, lost = api.deps.sessions.save, []

    def save(session, expected_version):
        if session.session_id == "raced" and not lost:
            lost.append(True)
            raise VersionConflict("another turn saved first")
        return real_save(session, expected_version=expected_version)

    monkeypatch.setattr(api.deps.sessions, "save", save)
    status, doc, _ = call(server[0], "POST", TURNS.format(session="raced"), {"message": "hello", "turn_id": "r1"})
    assert_json_error(status, doc, 409, "session_conflict")
    assert doc["response"]  # the customer-facing text ("please send it again") is kept


def test_a_reused_turn_id_with_another_message_is_409(server):
    """Old server: 200 with success false (turn_id_reused)."""
    base = server[0]
    path = TURNS.format(session="reuse")
    assert call(base, "POST", path, {"message": "hello", "turn_id": "same"})[0] == 200
    status, again, _ = call(base, "POST", path, {"message": "hello", "turn_id": "same"})
    assert status == 200 and again["success"] is True  # the same message: the first answer, replayed
    status, doc, _ = call(base, "POST", path, {"message": "refund everything", "turn_id": "same"})
    assert_json_error(status, doc, 409, "turn_id_reused")


def test_over_the_per_key_rate_is_429_with_retry_after(api):
    """Old server: no rate limit at all."""
    with serving(api, settings=ServeSettings(rate_per_key=1, rate_burst=3)) as base:
        answers = [call(base, "POST", "/v1/approvals/none", {"decision": "approve"}) for _ in range(4)]
        other_key = call(base, "POST", "/v1/approvals/none", {"decision": "approve"}, key=OTHER_KEY)
    assert [a[0] for a in answers[:3]] == [404, 404, 404]
    status, doc, headers = answers[3]
    assert_json_error(status, doc, 429, "rate_limited")
    assert int(headers["retry-after"]) >= 1
    assert other_key[0] == 404  # the bucket is per key


# --- banner and logs ------------------------------------------------------------------------------


def test_no_server_banner(server):
    """Old server: `Server: focal-serve Python/3.11.7`."""
    for path in ("/openapi.json", "/nowhere"):
        req = urllib.request.Request(server[0] + path)
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                headers = resp.headers
        except urllib.error.HTTPError as exc:
            headers = exc.headers
        assert headers.get("Server") is None, headers.get("Server")


def test_access_log_has_time_request_id_route_and_tenant_never_the_message(server, access_log):
    """Old server: `POST <route> 200 12ms` lines, no time, request id or tenant."""
    message, session = "my card is 4111 1111 1111 1111 SECRET-MARKER", "log-session-77"
    token = issue("c-200", "acme", SECRET)
    body = {"message": message, "customer_id": "claimed-customer-xyz"}
    status, doc, headers = call(server[0], "POST", TURNS.format(session=session), body,
                                headers={"X-Focal-Customer-Token": token})
    assert status == 200
    request_id = headers["x-amzn-requestid"]
    deadline = time.monotonic() + 5
    while not any(r["request_id"] == request_id for r in access_log) and time.monotonic() < deadline:
        time.sleep(0.05)
    [record] = [r for r in access_log if r["request_id"] == request_id]
    assert record["tenant"] == "acme" and record["status"] == 200 and record["method"] == "POST"
    assert record["route"] == "/v1/agents/{agent_id}/sessions/{session_id}/turns"
    assert record["time"].endswith("+00:00") and isinstance(record["ms"], float)
    line = json.dumps([{k: v for k, v in r.items() if k != "request_id"} for r in access_log])  # ids are random hex
    for secret in ("SECRET-MARKER", "4111 1111", KEY, OTHER_KEY, token, "c-200", "claimed-customer-xyz", session):
        assert secret not in line
