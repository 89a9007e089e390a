"""A credential header given more than once is refused, never read as one of its copies.

A chat key followed by another tenant's admin key in a second `x-api-key` line acted as that tenant (the last copy
won), and of two customer-token headers the first won. Any credential header — the API key (`x-api-key`,
`Authorization`) and the customer token — present twice, or with comma-joined values as proxies and API Gateway
merge a repeated header, is 401 `conflicting_credentials` in `focal serve` (a real uvicorn server receiving the
raw header lines), Unauthorized from the API Gateway authorizer (its event's `multiValueHeaders`), and 401
`conflicting_credentials` from the Lambda handlers behind it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from focal.auth import Principal
from focal.cli.serve import LocalApiKeyStore, ServeSettings, build_api, serving

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "retail" / "agent.yaml"
SECRET = "duplicate-credentials-secret-0123"
CHAT, OTHER_ADMIN = "dup-acme-chat", "dup-other-admin"
TURNS = "/v1/agents/retail/sessions/{session}/turns"
TURN_ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/live/POST/v1/agents/retail/sessions/s1/turns"
TURN_RESOURCE = "/v1/agents/{agent_id}/sessions/{session_id}/turns"


def token(sub: str, tenant: str = "acme") -> str:
    """A valid HS256 customer token (exp far ahead: the test never waits on it)."""
    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = b64(json.dumps({"sub": sub, "aud": tenant, "exp": int(time.time()) + 3600}).encode())
    sig = b64(hmac.new(SECRET.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest())
    return f"{head}.{body}.{sig}"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    keys = LocalApiKeyStore({CHAT: Principal("acme", frozenset({"chat"})), OTHER_ADMIN: Principal("other")})
    api = build_api([str(AGENT)], str(tmp_path_factory.mktemp("dup") / "focal.db"), None, keys,
                    secret_for=lambda tenant: SECRET)
    with serving(api, settings=ServeSettings(rate_per_key=0)) as url:
        yield url, api


def send(base: str, method: str, path: str, headers: list[tuple[str, str]], body: bytes = b"") -> tuple[int, dict[str, Any]]:
    """One request with exactly these header lines, repeats included (urllib would merge them)."""
    where = urlsplit(base)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for name, value in [*headers, ("Content-Type", "application/json"), ("Content-Length", str(len(body)))]:
            conn.putheader(name, value)
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def assert_conflicting(status: int, doc: dict[str, Any], *secrets: str) -> None:
    assert status == 401, doc
    assert doc["success"] is False and doc["error"]["code"] == "conflicting_credentials", doc
    assert not any(s in json.dumps(doc) for s in secrets)  # no key or token echoed


TWICE = {
    "chat key, then another tenant's admin key": [("x-api-key", CHAT), ("x-api-key", OTHER_ADMIN)],
    "another tenant's admin key, then the chat key": [("x-api-key", OTHER_ADMIN), ("x-api-key", CHAT)],
    "the same key twice": [("x-api-key", CHAT), ("x-api-key", CHAT)],
    "names differing in case": [("x-api-key", CHAT), ("X-API-Key", OTHER_ADMIN)],
    "comma-joined keys": [("x-api-key", f"{CHAT}, {OTHER_ADMIN}")],
    "two Authorization lines": [("Authorization", f"Bearer {CHAT}"), ("Authorization", f"Bearer {OTHER_ADMIN}")],
    "comma-joined bearers": [("Authorization", f"Bearer {CHAT}, Bearer {OTHER_ADMIN}")],
}


@pytest.mark.parametrize("headers", list(TWICE.values()), ids=list(TWICE))
def test_a_repeated_api_key_header_is_refused_on_the_turn_route(served, headers):
    base, api = served
    session = "dup-" + hashlib.sha256(repr(headers).encode()).hexdigest()[:12]
    status, doc = send(base, "POST", TURNS.format(session=session), headers, b'{"message": "Where is my order?"}')
    assert_conflicting(status, doc, CHAT, OTHER_ADMIN)
    for tenant in ("acme", "other"):  # the turn ran for nobody
        assert api.deps.turns.list_for_session(tenant, "retail", session) == []


@pytest.mark.parametrize(("method", "path", "body"), [
    ("POST", "/v1/approvals/ap-1", b'{"decision": "approve"}'),
    ("PUT", "/v1/agents/retail", b"id: retail\nname: Retail\n"),
    ("GET", "/playground/api/agents", b""),
], ids=["approval", "publish", "playground"])
def test_a_repeated_api_key_header_is_refused_on_every_route(served, method, path, body):
    base, _ = served
    status, doc = send(base, method, path, [("x-api-key", CHAT), ("x-api-key", OTHER_ADMIN)], body)
    assert_conflicting(status, doc, CHAT, OTHER_ADMIN)


@pytest.mark.parametrize("tokens", [[token("c-100"), token("c-200")], [token("c-100"), token("c-100")]],
                         ids=["two customers", "the same token twice"])
def test_a_repeated_customer_token_header_is_refused(served, tokens):
    base, api = served
    session = f"dup-token-{len(set(tokens))}"
    headers = [("x-api-key", CHAT), *(("X-Focal-Customer-Token", t) for t in tokens)]
    status, doc = send(base, "POST", TURNS.format(session=session), headers, b'{"message": "Where is my order?"}')
    assert_conflicting(status, doc, *tokens)
    assert api.deps.turns.list_for_session("acme", "retail", session) == []


def test_one_of_each_credential_is_still_served(served):
    base, _ = served
    headers = [("x-api-key", CHAT), ("Authorization", f"Bearer {CHAT}"), ("X-Focal-Customer-Token", token("c-100"))]
    status, doc = send(base, "POST", TURNS.format(session="dup-single"), headers, b'{"message": "Hello"}')
    assert status == 200 and doc["success"], doc


# --- API Gateway: the authorizer and the Lambda handlers, with multiValueHeaders ---------------------------------


def authorizer_event(headers: dict[str, str], multi: dict[str, list[str]]) -> dict[str, Any]:
    return {"type": "REQUEST", "methodArn": TURN_ARN, "resource": TURN_RESOURCE, "httpMethod": "POST",
            "headers": headers, "multiValueHeaders": multi}


@pytest.fixture
def gateway_keys(keys_table, monkeypatch):
    monkeypatch.setenv("FOCAL_SECRET_CUSTOMER_TOKEN_SECRET", SECRET)
    from handlers import authorizer

    monkeypatch.setattr(authorizer, "_secret_for", lambda tenant: SECRET)
    chat = keys_table.create("acme", ["chat"])[0]
    other_admin = keys_table.create("other", ["admin"])[0]
    return authorizer, chat, other_admin


def test_the_authorizer_refuses_a_key_repeated_in_multi_value_headers(gateway_keys):
    authorizer, chat, other_admin = gateway_keys
    # API Gateway (REST) keeps the last copy in `headers` and every copy in `multiValueHeaders`.
    for multi in ([chat, other_admin], [other_admin, chat], [chat, chat]):
        event = authorizer_event({"x-api-key": multi[-1]}, {"x-api-key": multi})
        with pytest.raises(Exception, match="^Unauthorized$"):
            authorizer.handler(event, None)
    # an HTTP API or a proxy joins the copies with a comma
    with pytest.raises(Exception, match="^Unauthorized$"):
        authorizer.handler(authorizer_event({"x-api-key": f"{chat},{other_admin}"}, {}), None)
    # two names differing in case, one value each
    with pytest.raises(Exception, match="^Unauthorized$"):
        authorizer.handler(authorizer_event({"x-api-key": chat, "X-Api-Key": other_admin}, {}), None)
    allowed = authorizer.handler(authorizer_event({"x-api-key": chat}, {"x-api-key": [chat]}), None)
    assert allowed["context"]["tenant_id"] == "acme"
    assert allowed["policyDocument"]["Statement"][0]["Effect"] == "Allow"


def test_the_authorizer_refuses_a_repeated_customer_token(gateway_keys):
    authorizer, chat, _ = gateway_keys
    first, second = token("c-100"), token("c-200")
    event = authorizer_event({"x-api-key": chat, "X-Focal-Customer-Token": second},
                             {"x-api-key": [chat], "X-Focal-Customer-Token": [first, second]})
    with pytest.raises(Exception, match="^Unauthorized$"):
        authorizer.handler(event, None)
    single = authorizer.handler(authorizer_event({"x-api-key": chat, "X-Focal-Customer-Token": first},
                                                 {"x-api-key": [chat], "X-Focal-Customer-Token": [first]}), None)
    assert single["context"]["customer_id"] == "c-100"


class Ctx:
    function_name, memory_limit_in_mb, aws_request_id = "api", 1024, "req-1"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:api"


def proxy_event(method: str, resource: str, path: str, params: dict[str, str], body: str,
                multi: dict[str, list[str]]) -> dict[str, Any]:
    return {"resource": resource, "path": path, "httpMethod": method,
            "headers": {"content-type": "application/json", **{k: v[-1] for k, v in multi.items()}},
            "multiValueHeaders": {"content-type": ["application/json"], **multi},
            "queryStringParameters": None, "multiValueQueryStringParameters": None, "pathParameters": params,
            "stageVariables": None, "isBase64Encoded": False, "body": body,
            "requestContext": {"resourcePath": resource, "httpMethod": method, "stage": "live", "requestId": "r1",
                               "authorizer": {"tenant_id": "other", "scopes": "admin"}}}


def no_deps() -> Any:
    raise AssertionError("a request with a repeated credential reached the engine")


@pytest.mark.parametrize("multi", [{"x-api-key": ["k-chat", "k-admin"]},
                                   {"Authorization": ["Bearer k-chat", "Bearer k-admin"]},
                                   {"X-Focal-Customer-Token": ["t1", "t2"]}], ids=["api key", "bearer", "customer token"])
def test_the_lambda_handlers_refuse_a_repeated_credential(monkeypatch, multi):
    import handlers.agents as agents
    import handlers.approvals as approvals

    monkeypatch.setattr(approvals, "deps_from_env", no_deps)
    monkeypatch.setattr(agents, "deps_from_env", no_deps)
    answers = [
        approvals.handler(proxy_event("POST", "/v1/approvals/{approval_id}", "/v1/approvals/ap-1",
                                      {"approval_id": "ap-1"}, '{"decision": "approve"}', multi), Ctx()),
        agents.handler(proxy_event("PUT", "/v1/agents/{agent_id}", "/v1/agents/shop", {"agent_id": "shop"},
                                   "id: shop\nname: Shop\n", multi), Ctx()),
    ]
    for answer in answers:
        assert answer["statusCode"] == 401, answer
        assert json.loads(answer["body"])["error"]["code"] == "conflicting_credentials"
