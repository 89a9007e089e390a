"""`focal serve`: real HTTP against the API Gateway routes, backed by the local runner.

One uvicorn server (retail agent, temp SQLite, keys for two tenants and a chat-only key) on an
ephemeral loopback port in a thread; then a bounded schemathesis pass over its own OpenAPI document:
no 5xx, and every 4xx (and every rejection of an invalid request) in the gateway's structured error
shape. Hostile clients (floods, slow clients, oversized heads) are in tests/security/test_serve_hostile.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from http_client import http_call

from focal.auth import Principal
from focal.cli.serve import FocalApi, LocalApiKeyStore, ServeSettings, build_api, parse_key_specs, serving

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "retail" / "agent.yaml"
KEY_ACME, KEY_BETA, KEY_CHAT, KEY_BACKEND = "test-key-acme", "test-key-beta", "test-key-chat", "test-key-backend"
SECRET = "acme-customer-token-secret-0123456789"
TURNS = "/v1/agents/retail/sessions/{session}/turns"


@pytest.fixture(scope="module")
def api(tmp_path_factory) -> FocalApi:
    db = tmp_path_factory.mktemp("serve") / "focal.db"
    keys = LocalApiKeyStore({KEY_ACME: "acme", KEY_BETA: "beta", KEY_CHAT: Principal("acme", frozenset({"chat"})),
                             KEY_BACKEND: Principal("acme", frozenset({"chat"}), may_assert_customer=True)})
    return build_api([str(AGENT)], str(db), None, keys, secret_for=lambda tenant: SECRET if tenant == "acme" else None)


def customer(customer_id: str) -> dict[str, str]:
    from focal.customer_tokens import issue

    return {"X-Focal-Customer-Token": issue(customer_id, "acme", SECRET)}


@pytest.fixture(scope="module")
def base_url(api):
    with serving(api, settings=ServeSettings(rate_per_key=0)) as url:  # the rate limit: test_serve_hostile.py
        yield url


def call(base_url: str, method: str, path: str, body: Any = None, key: str | None = KEY_ACME,
         headers: dict[str, str] | None = None, raw: bytes | None = None) -> tuple[int, dict[str, Any], dict[str, str]]:
    return http_call(base_url, method, path, body, key, headers, raw)


def assert_error(status: int, doc: dict[str, Any], expected_status: int, code: str, in_message: str = "") -> None:
    assert status == expected_status, doc
    assert doc["success"] is False
    assert doc["error"]["code"] == code
    assert in_message in doc["error"]["message"]


def test_a_three_turn_conversation_returns_turn_results(base_url):
    path = TURNS.format(session="conv-1")
    status, first, _ = call(base_url, "POST", path, {"message": "Has my order shipped yet?"}, headers=customer("c-200"))
    assert status == 200, first
    assert first["success"] is True and first["session_id"] == "conv-1"
    assert first["scenario"]["id"] == "order_status" and first["scenario"]["step_id"] == "ask_order"
    assert first["turn_id"]  # generated when absent

    status, second, _ = call(base_url, "POST", path, {"message": "A1004", "turn_id": "t-2"}, headers=customer("c-200"))
    assert status == 200 and second["turn_id"] == "t-2"
    assert [c["tool_id"] for c in second["tool_calls"]] == ["lookup_order"]
    assert "A1004" in second["response"] and "processing" in second["response"]

    status, third, _ = call(base_url, "POST", path, {"message": "Hello!"}, headers=customer("c-200"))
    assert status == 200 and third["execution_path"] == "respond"
    for result in (first, second, third):  # the TurnResult contract, nothing more
        assert set(result) >= {"success", "turn_id", "session_id", "response", "execution_path", "timings_ms"}


def test_unauthorized_without_a_key_or_with_a_wrong_one(base_url):
    path = TURNS.format(session="auth")
    for key, headers in ((None, None), ("not-a-key", None), (None, {"Authorization": "Bearer nope"})):
        status, doc, _ = call(base_url, "POST", path, {"message": "hi"}, key=key, headers=headers)
        assert_error(status, doc, 401, "unauthorized")
    status, doc, _ = call(base_url, "POST", path, {"message": "hi"}, key=None, headers={"Authorization": f"Bearer {KEY_ACME}"})
    assert status == 200 and doc["success"] is True


def test_tenant_comes_from_the_key_never_the_body(base_url, api):
    path = TURNS.format(session="shared-session")
    status, _, _ = call(base_url, "POST", path, {"message": "Has my order shipped yet?", "tenant_id": "beta"}, key=KEY_ACME)
    assert status == 200
    status, beta, _ = call(base_url, "POST", path, {"message": "Hello!"}, key=KEY_BETA)
    assert status == 200 and beta["scenario"] is None  # beta's session is new, not acme's order-status flow
    status, acme, _ = call(base_url, "POST", path, {"message": "A1004"}, key=KEY_ACME)
    # acme's flow went on (the caller is anonymous, so the tools find no order of theirs: not found)
    assert acme["scenario"] == {"id": "order_status", "step_id": "order_not_found"}
    turns = {t: api.deps.turns.list_for_session(t, "retail", "shared-session") for t in ("acme", "beta", "evil")}
    assert {t: len(v) for t, v in turns.items()} == {"acme": 2, "beta": 1, "evil": 0}


@pytest.mark.parametrize(("body", "raw", "in_message"), [
    (None, b"{not json", "body: not valid JSON"),
    (None, b"", "body: a JSON object is required"),
    (["message"], None, "body: must be a JSON object"),
    ({}, None, "message: required"),
    ({"message": 42}, None, "message: must be a string"),
    ({"message": "x" * 100_001}, None, "message: longer than 100000"),
    ({"message": "hi", "customer_id": "bad id!"}, None, "customer_id: must be a string matching"),
    ({"message": "hi", "customer_id": None}, None, "customer_id"),
    ({"message": "hi", "turn_id": ""}, None, "turn_id: must be a string matching ^[A-Za-z0-9_.:-]{1,128}$"),
    ({"message": "hi", "turn_id": "t" * 129}, None, "turn_id"),
])
def test_invalid_turn_bodies_get_a_specific_400(base_url, body, raw, in_message):
    status, doc, _ = call(base_url, "POST", TURNS.format(session="bad"), body, raw=raw)
    assert_error(status, doc, 400, "bad_request", in_message)


def test_invalid_path_ids_unknown_routes_and_wrong_methods(base_url):
    status, doc, _ = call(base_url, "POST", "/v1/agents/retail/sessions/a%20b/turns", {"message": "hi"})
    assert_error(status, doc, 400, "bad_request", "session_id")
    status, doc, _ = call(base_url, "POST", "/v1/nowhere", {"message": "hi"})
    assert_error(status, doc, 404, "not_found")
    status, doc, headers = call(base_url, "GET", TURNS.format(session="s"))
    assert_error(status, doc, 405, "method_not_allowed")
    assert headers["allow"] == "POST" and headers["x-amzn-requestid"] == doc["error"]["request_id"]
    status, doc, _ = call(base_url, "DELETE", "/v1/approvals/abc")
    assert_error(status, doc, 405, "method_not_allowed")


def test_publish_and_approvals_answer_through_their_handlers(base_url):
    status, doc, _ = call(base_url, "PUT", "/v1/agents/retail", raw=b"id: retail\n")
    assert_error(status, doc, 405, "publish_unavailable", "reads agents from files")
    status, doc, _ = call(base_url, "POST", "/v1/approvals/no-such-id", {"decision": "approve"})
    assert_error(status, doc, 404, "not_found")
    status, doc, _ = call(base_url, "POST", "/v1/approvals/no-such-id", raw=b"not json")
    assert_error(status, doc, 400, "bad_decision")
    status, doc, _ = call(base_url, "POST", "/v1/approvals/no-such-id", {"decision": "approve"}, key=None)
    assert_error(status, doc, 401, "unauthorized")


def test_oversized_body_is_413(base_url):
    from focal.cli.serve_api import MAX_TURN_BODY_BYTES

    status, doc, _ = call(base_url, "POST", TURNS.format(session="big"), {"message": "x" * (MAX_TURN_BODY_BYTES + 1)})
    assert_error(status, doc, 413, "payload_too_large")


def test_a_key_without_the_routes_scope_is_403(base_url):
    status, doc, _ = call(base_url, "POST", "/v1/approvals/no-such-id", {"decision": "approve"}, key=KEY_CHAT)
    assert_error(status, doc, 403, "forbidden", "approve")
    status, doc, _ = call(base_url, "PUT", "/v1/agents/retail", raw=b"id: retail\n", key=KEY_CHAT)
    assert_error(status, doc, 403, "forbidden", "publish")
    status, doc, _ = call(base_url, "POST", TURNS.format(session="chat-key"), {"message": "Hello!"}, key=KEY_CHAT)
    assert status == 200 and doc["success"] is True


def test_the_customer_comes_from_a_token_or_a_trusted_backend_never_the_body(base_url, api):
    def customer_of(session: str, key: str = KEY_ACME, headers: dict[str, str] | None = None) -> str:
        status, doc, _ = call(base_url, "POST", TURNS.format(session=session), {"message": "Hello!", "customer_id": "c-777"},
                              key=key, headers=headers)
        assert status == 200, doc
        [record] = api.deps.turns.list_for_session("acme", "retail", session)
        return record.customer_id

    assert customer_of("claims") == "anonymous"  # an ordinary key: the body's claim is ignored
    assert customer_of("token", headers=customer("c-200")) == "c-200"  # the tenant's signed token, not the body
    assert customer_of("backend", key=KEY_BACKEND) == "c-777"  # a trusted backend key may assert it
    status, doc, _ = call(base_url, "POST", TURNS.format(session="forged"), {"message": "Hello!"},
                          headers={"X-Focal-Customer-Token": customer("c-200")["X-Focal-Customer-Token"][:-2] + "xx"})
    assert_error(status, doc, 401, "unauthorized", "customer token")


def test_api_keys_are_kept_hashed_with_their_scopes():
    store = LocalApiKeyStore(parse_key_specs("k1=acme, k2=beta:chat,approve, k3=acme:prod"))
    assert store.tenant_for("k1") == "acme" and store.tenant_for("k2") == "beta" and store.tenant_for("k4") is None
    assert store.principal_for("k1").allows("publish")  # KEY=TENANT keeps every scope (admin)
    k2 = store.principal_for("k2")
    assert k2.scopes == {"chat", "approve"} and not k2.allows("publish")
    assert store.principal_for("k3").tenant_id == "acme:prod"  # not a scope list: part of the tenant id
    assert parse_key_specs(["k5=t:chat,approve"])["k5"].scopes == {"chat", "approve"}
    assert "k1" not in repr(store._principals)
    with pytest.raises(ValueError):
        parse_key_specs(["no-tenant"])


# --- schemathesis ---------------------------------------------------------------------------------

MAX_EXAMPLES = 25  # per operation and generation mode: ~30 s on two cores


def structured_4xx(ctx, response, case) -> bool | None:
    """Every 4xx answer names its error: `{"success": false, "error": {"code": ..., "message": ...}}`."""
    if 400 <= response.status_code < 500:
        doc = response.json()
        error = doc.get("error") if isinstance(doc, dict) else None
        assert doc.get("success") is False, f"4xx without success=false: {response.text[:300]}"
        assert isinstance(error, dict) and error.get("code") and error.get("message"), f"unstructured 4xx: {response.text[:300]}"
    return None


def test_schemathesis_bounded_pass(base_url):
    schemathesis = pytest.importorskip("schemathesis")
    from hypothesis import HealthCheck, given, settings
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import negative_data_rejection

    # the served document loads; the local routes (the playground's reads: tests/functional/test_playground_api.py
    # and test_openapi_routes.py) are left out of the fuzzing, which is for the API Gateway stage's routes
    schema = schemathesis.openapi.from_url(base_url + "/openapi.json").exclude(tag="local")
    schema.config.update(base_url=base_url)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {op.label for op in operations} == {
        "POST /v1/agents/{agent_id}/sessions/{session_id}/turns", "PUT /v1/agents/{agent_id}",
        "POST /v1/approvals/{approval_id}"}
    headers = {"x-api-key": KEY_ACME}
    seen: dict[str, set[int]] = {}

    def bounded_run(strategy, checks, label):
        @settings(max_examples=MAX_EXAMPLES, derandomize=True, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case=strategy)
        def run(case):
            response = case.call_and_validate(base_url=base_url, headers=headers, checks=checks)
            seen.setdefault(label, set()).add(response.status_code)

        return run

    for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):
        checks = [not_a_server_error, structured_4xx] + ([negative_data_rejection] if mode.name == "NEGATIVE" else [])
        for operation in operations:
            bounded_run(operation.as_strategy(generation_mode=mode), checks, f"{mode.name} {operation.label}")()
    assert all(code < 500 for codes in seen.values() for code in codes), seen
    assert seen, "schemathesis generated no requests"
