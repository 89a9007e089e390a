"""The playground's page and read endpoints on `focal serve`: keys, scopes, tenants, the trace and the
saved test case. The page itself in a browser: tests/e2e/test_playground_browser.py."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from focal.auth import Principal
from focal.cli.serve import LocalApiKeyStore, ServeSettings, build_api, serving

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "retail" / "agent.yaml"
ADMIN_A, ADMIN_B, CHAT, BACKEND, APPROVER = "k-admin-a", "k-admin-b", "k-chat", "k-backend", "k-approver"
API = "/playground/api"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    db = tmp_path_factory.mktemp("playground-api") / "focal.db"
    keys = LocalApiKeyStore({ADMIN_A: "acme", ADMIN_B: "beta", CHAT: Principal("acme", frozenset({"chat"})),
                             BACKEND: Principal("acme", frozenset({"chat"}), may_assert_customer=True),
                             APPROVER: Principal("acme", frozenset({"approve"}))})
    with serving(build_api([str(AGENT)], str(db), None, keys), settings=ServeSettings(rate_per_key=0)) as url:
        for message in ("I want a refund for my order", "It's A1002"):
            assert get(url, "/v1/agents/retail/sessions/pg-1/turns", BACKEND, {"message": message, "customer_id": "c-100"})[0] == 200
        yield url


def get(base_url: str, path: str, key: str | None = ADMIN_A, body: Any = None) -> tuple[int, Any, dict[str, str]]:
    req = urllib.request.Request(base_url + path, data=None if body is None else json.dumps(body).encode(),
                                 method="GET" if body is None else "POST")
    if key:
        req.add_header("x-api-key", key)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            raw, status, headers = resp.read(), resp.status, resp.headers
    except urllib.error.HTTPError as exc:
        raw, status, headers = exc.read(), exc.code, exc.headers
    headers = {k.lower(): v for k, v in headers.items()}
    return status, json.loads(raw) if "json" in headers.get("content-type", "") else raw, headers


def test_the_page_and_its_files_are_served_with_a_strict_policy(base_url):
    status, page, headers = get(base_url, "/", key=None)
    assert status == 200 and b"/playground/static/app.js" in page and headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in headers["content-security-policy"] and headers["x-content-type-options"] == "nosniff"
    status, script, headers = get(base_url, "/playground/static/app.js", key=None)
    assert status == 200 and b"sessionStorage" in script and "javascript" in headers["content-type"]
    for name in ("index.html", "..%2fplayground.py", "nope.js"):
        status, doc, _ = get(base_url, f"/playground/static/{name}", key=None)
        assert status == 404 and doc["error"]["code"] == "not_found", name


def test_reads_need_a_key_and_the_right_scope(base_url):
    assert get(base_url, f"{API}/agents", key=None)[0] == 401
    assert get(base_url, f"{API}/agents", key="not-a-key")[0] == 401
    status, doc, _ = get(base_url, f"{API}/agents/retail/sessions", key=CHAT)  # a customer-facing chat key
    assert status == 403 and "trusted backend" in doc["error"]["message"]
    assert get(base_url, f"{API}/agents/retail/sessions", key=BACKEND)[0] == 200
    assert get(base_url, f"{API}/approvals", key=BACKEND)[0] == 403
    assert get(base_url, f"{API}/approvals", key=APPROVER)[1] == {"success": True, "items": []}
    assert get(base_url, f"{API}/agents/retail/sessions/a%20b/turns")[0] == 400
    assert get(base_url, f"{API}/agents/nobody/sessions/pg-1/turns")[1]["error"]["code"] == "agent_not_found"


def test_another_tenant_sees_none_of_the_sessions(base_url):
    status, doc, _ = get(base_url, f"{API}/agents/retail/sessions")
    assert status == 200 and [(s["session_id"], s["turns"], s["customer_id"]) for s in doc["items"]] == [("pg-1", 2, "c-100")]
    assert get(base_url, f"{API}/agents/retail/sessions", key=ADMIN_B)[1]["items"] == []
    assert get(base_url, f"{API}/agents/retail/sessions/pg-1/turns", key=ADMIN_B)[1]["items"] == []
    status, doc, _ = get(base_url, f"{API}/agents/retail/sessions/pg-1/test", key=ADMIN_B)
    assert status == 404 and doc["error"]["code"] == "not_found"


def test_the_trace_of_a_blocked_refund(base_url):
    status, doc, _ = get(base_url, f"{API}/agents/retail/sessions/pg-1/turns")
    assert status == 200
    first, second = doc["items"]
    assert [s["stage"] for s in second["timeline"]][:6] == ["sensor", "retrieve", "route", "tools", "generate", "enforce"]
    assert all(s["ran"] and s["ms"] >= 0 for s in second["timeline"][:6])
    assert second["flow"]["before"] == first["flow"]["after"]  # before = the previous turn's session
    assert second["flow"]["before"]["step"] == "collect_order" and second["flow"]["after"]["slots"]["order_id"] == "A1002"
    assert [v["rule_id"] for v in second["enforcement"]["lanes"]["deterministic"]] == ["refund_cap"]
    blocked, shown = second["enforcement"]["drafts"]
    assert blocked["blocked"] and "$75" in blocked["text"] and shown["shown"] and not shown["blocked"]
    assert [t["tool_id"] for t in second["tools"]] == ["lookup_order", "check_refund_eligibility"]
    rules = {r["rule_id"]: r for r in second["rules"]}
    assert rules["refund_cap"]["retrieved"] and rules["refund_cap"]["reason"]  # matched or why not
    assert second["model_calls"] == [] and second["cost_usd"] == 0


def test_save_as_test_writes_the_observed_expectations(base_url):
    status, doc, _ = get(base_url, f"{API}/agents/retail/sessions/pg-1/test")
    assert status == 200 and doc["items"]["file_name"] == "retail-pg-1.tests.yaml"
    [conversation] = yaml.safe_load(doc["items"]["yaml"])["conversations"]
    assert conversation["customer_id"] == "c-100"
    first, second = conversation["turns"]
    assert first["expect"]["scenario"] == "refund" and first["expect"]["step"] == "collect_order"
    assert second["user"] == "It's A1002" and second["expect"]["violations"] == ["refund_cap"]
    assert second["expect"]["tool_calls"] == [{"lookup_order": {"order_id": "A1002"}},
                                             {"check_refund_eligibility": {"order_id": "A1002"}}]
