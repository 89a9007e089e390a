"""An id that passes one check passes them all, and a body's wrong type is a 400 naming the field.

A customer id "c-100\\n" passed `focal serve`'s `^…$` check (applied with `re.match`, which lets a trailing newline
through), then failed the pipeline's own model: HTTP 500. An approval body `{"decision": ["approve"]}` was looked
up in a dict: HTTP 500. Every id is now checked whole by one definition (focal.ids) wherever it enters — path
parameters, bodies, customer tokens, API keys' tenants — and every JSON body is read through a typed model
(focal.api_bodies), so a wrong value or type is a 4xx that names the field and why.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any

import pytest
from http_client import http_call

from focal.auth import KeyRecord, Principal
from focal.cli.serve import LocalApiKeyStore, ServeSettings, build_api, serving
from focal.main import main

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "retail" / "agent.yaml"
SECRET = "ids-and-bodies-secret-0123456789"
CHAT, TRUSTED, ADMIN = "ids-acme-chat", "ids-acme-trusted", "ids-acme-admin"
TURNS = "/v1/agents/{agent}/sessions/{session}/turns"
TURN_ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/live/POST/v1/agents/retail/sessions/s1/turns"
TURN_RESOURCE = "/v1/agents/{agent_id}/sessions/{session_id}/turns"


def signed(claims: dict[str, Any]) -> str:
    """An HS256 token over exactly these claims (the issuer refuses to sign a bad `sub`)."""
    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    head, body = b64(b'{"alg":"HS256","typ":"JWT"}'), b64(json.dumps(claims).encode())
    return f"{head}.{body}.{b64(hmac.new(SECRET.encode(), f'{head}.{body}'.encode(), hashlib.sha256).digest())}"


NEWLINE_SUB = signed({"sub": "c-100\n", "aud": "acme", "exp": int(time.time()) + 3600})


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    keys = LocalApiKeyStore({CHAT: Principal("acme", frozenset({"chat", "approve"})), ADMIN: Principal("acme"),
                             TRUSTED: Principal("acme", frozenset({"chat"}), may_assert_customer=True)})
    api = build_api([str(AGENT)], str(tmp_path_factory.mktemp("ids") / "focal.db"), None, keys,
                    secret_for=lambda tenant: SECRET)
    with serving(api, settings=ServeSettings(rate_per_key=0)) as url:
        yield url


def assert_names(status: int, doc: dict[str, Any], expected: int, code: str, field: str) -> None:
    assert status == expected, doc
    assert doc["success"] is False and doc["error"]["code"] == code, doc
    assert doc["error"]["message"].startswith(f"{field}: ") or f"; {field}: " in doc["error"]["message"], doc


# --- ids with a trailing newline, on every route that carries one ------------------------------------------------


@pytest.mark.parametrize(("path", "field"), [
    (TURNS.format(agent="retail", session="s1%0A"), "session_id"),
    (TURNS.format(agent="retail%0A", session="s1"), "agent_id"),
], ids=["session_id", "agent_id"])
def test_a_path_id_with_a_trailing_newline_is_a_400(base, path, field):
    status, doc, _ = http_call(base, "POST", path, {"message": "Hello"}, CHAT)
    assert_names(status, doc, 400, "bad_request", field)


@pytest.mark.parametrize(("body", "field"), [
    ({"message": "Hello", "customer_id": "c-100\n"}, "customer_id"),
    ({"message": "Hello", "turn_id": "t-1\n"}, "turn_id"),
], ids=["customer_id", "turn_id"])
def test_a_body_id_with_a_trailing_newline_is_a_400(base, body, field):
    status, doc, _ = http_call(base, "POST", TURNS.format(agent="retail", session="nl-body"), body, TRUSTED)
    assert_names(status, doc, 400, "bad_request", field)


def test_a_customer_token_whose_subject_ends_in_a_newline_is_refused(base):
    status, doc, _ = http_call(base, "POST", TURNS.format(agent="retail", session="nl-token"), {"message": "Hello"},
                               CHAT, headers={"X-Focal-Customer-Token": NEWLINE_SUB})
    assert status == 401 and doc["error"]["code"] == "unauthorized", doc
    assert "claim 'sub' must be a customer id" in doc["error"]["message"]


def test_an_approval_id_with_a_trailing_newline_is_a_400(base):
    status, doc, _ = http_call(base, "POST", "/v1/approvals/ap-1%0A", {"decision": "approve"}, CHAT)
    assert_names(status, doc, 400, "bad_request", "approval_id")


@pytest.mark.parametrize(("path", "field"), [
    ("/playground/api/agents/retail%0A/sessions", "agent_id"),
    ("/playground/api/agents/retail/sessions/s1%0A/turns", "session_id"),
    ("/playground/api/agents/retail/sessions/s1%0A/test", "session_id"),
    ("/playground/api/agents/retail/sessions/s1%0A/flow", "session_id"),
    ("/playground/api/agents/retail%0A/sessions/s1/flow", "agent_id"),
])
def test_playground_reads_with_a_trailing_newline_id_are_a_400(base, path, field):
    status, doc, _ = http_call(base, "GET", path, None, ADMIN)
    assert_names(status, doc, 400, "bad_request", field)


def test_the_authorizer_refuses_a_newline_subject_and_a_key_of_a_newline_tenant(keys_table, monkeypatch):
    from handlers import authorizer

    monkeypatch.setattr(authorizer, "_secret_for", lambda tenant: SECRET)
    chat = keys_table.create("acme", ["chat"])[0]
    event = {"type": "REQUEST", "methodArn": TURN_ARN, "resource": TURN_RESOURCE, "httpMethod": "POST"}
    with pytest.raises(Exception, match="^Unauthorized$"):
        authorizer.handler({**event, "headers": {"x-api-key": chat, "X-Focal-Customer-Token": NEWLINE_SUB}}, None)
    # a key record written before tenants were checked whole: it can do nothing
    from focal.adapters.api_keys import partition_key

    keys_table._client.put_item(TableName="api-keys", Item={
        "pk": {"S": partition_key("fk_old")}, "tenant_id": {"S": "acme\n"}, "scopes": {"SS": ["admin"]}})
    with pytest.raises(Exception, match="^Unauthorized$"):
        authorizer.handler({**event, "headers": {"x-api-key": "fk_old"}}, None)
    assert KeyRecord("k", "acme\n", frozenset({"admin"})).principal() is None


def test_no_key_can_be_made_for_a_tenant_id_with_a_trailing_newline(tmp_path, capsys):
    with pytest.raises(ValueError, match="^tenant_id: "):
        LocalApiKeyStore().add("k", "acme\n")
    code = main(["keys", "create", "--tenant", "acme\n", "--scope", "chat", "--db", str(tmp_path / "focal.db")])
    assert code == 2 and "tenant_id: must be a string matching" in capsys.readouterr().err
    from focal.customer_tokens import issue

    with pytest.raises(ValueError, match="customer id"):
        issue("c-100\n", "acme", SECRET)


# --- wrong types in each request body ------------------------------------------------------------------------------


@pytest.mark.parametrize("decision", [["approve"], {"approve": True}, 1, True, None, "yes"],
                         ids=["list", "object", "number", "boolean", "null", "other text"])
def test_a_wrong_approval_decision_is_a_400_naming_the_field(base, decision):
    status, doc, _ = http_call(base, "POST", "/v1/approvals/ap-1", {"decision": decision}, CHAT)
    assert_names(status, doc, 400, "bad_decision", "decision")


@pytest.mark.parametrize(("body", "field"), [
    ({"message": ["Hello"]}, "message"), ({"message": {"text": "Hello"}}, "message"), ({"message": 1}, "message"),
    ({"message": None}, "message"), ({"message": True}, "message"),
    ({"message": "Hello", "customer_id": 100}, "customer_id"), ({"message": "Hello", "customer_id": ["c-1"]}, "customer_id"),
    ({"message": "Hello", "turn_id": 7}, "turn_id"), ({"message": "Hello", "turn_id": {"id": "t"}}, "turn_id"),
])
def test_a_wrong_type_in_the_turn_body_is_a_400_naming_the_field(base, body, field):
    status, doc, _ = http_call(base, "POST", TURNS.format(agent="retail", session="types"), body, TRUSTED)
    assert_names(status, doc, 400, "bad_request", field)


class Ctx:
    function_name, memory_limit_in_mb, aws_request_id = "api", 1024, "req-1"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:api"


def api_event(method: str, resource: str, path: str, params: dict[str, str], body: str) -> dict[str, Any]:
    return {"resource": resource, "path": path, "httpMethod": method, "headers": {"content-type": "application/json"},
            "multiValueHeaders": {}, "queryStringParameters": None, "multiValueQueryStringParameters": None,
            "pathParameters": params, "stageVariables": None, "isBase64Encoded": False, "body": body,
            "requestContext": {"resourcePath": resource, "httpMethod": method, "stage": "live", "requestId": "r1",
                               "authorizer": {"tenant_id": "acme", "scopes": "admin"}}}


def no_deps() -> Any:
    raise AssertionError("a refused request reached the engine")


@pytest.mark.parametrize(("approval_id", "body", "code", "field"), [
    ("ap-1", '{"decision": ["approve"]}', "bad_decision", "decision"),
    ("ap-1", '{"decision": {"x": 1}}', "bad_decision", "decision"),
    ("ap-1\n", '{"decision": "approve"}', "bad_request", "approval_id"),
], ids=["list", "object", "newline id"])
def test_the_approvals_lambda_answers_a_400_naming_the_field(monkeypatch, approval_id, body, code, field):
    import handlers.approvals as approvals

    monkeypatch.setattr(approvals, "deps_from_env", no_deps)
    answer = approvals.handler(api_event("POST", "/v1/approvals/{approval_id}", f"/v1/approvals/{approval_id}",
                                         {"approval_id": approval_id}, body), Ctx())
    assert_names(answer["statusCode"], json.loads(answer["body"]), 400, code, field)


@pytest.mark.parametrize(("agent_id", "yaml_text", "problem"), [
    ("shop", "id: [shop]\nname: Shop\n", "id: "),
    ("shop", "id: shop\nname: {first: Shop}\n", "name: "),
    ("shop", "id: shop\nname: Shop\nrules: just one\n", "rules: "),
    ("shop", "id: shop\nname: Shop\nscenarios: {help: 1}\n", "scenarios: "),
    ("shop", "id: shop\nname: Shop\nversion: two\n", "version: "),
    ("shop", "id: shop\nname: Shop\nrules:\n  - id: r1\n    condition_text: [a]\n    action_text: b\n",
     "rules[0].condition_text: "),
])
def test_the_publish_lambda_answers_a_wrong_typed_field_with_a_400_naming_it(monkeypatch, agent_id, yaml_text, problem):
    import handlers.agents as agents

    monkeypatch.setattr(agents, "deps_from_env",
                        lambda: type("Deps", (), {"configs": None, "rule_index": None, "embedder": None})())
    answer = agents.handler(api_event("PUT", "/v1/agents/{agent_id}", f"/v1/agents/{agent_id}",
                                      {"agent_id": agent_id}, yaml_text), Ctx())
    doc = json.loads(answer["body"])
    assert answer["statusCode"] == 400 and doc["error"]["code"] == "invalid_agent", doc
    assert any(p.startswith(problem) for p in doc["error"]["problems"]), doc


def test_the_publish_lambda_refuses_an_agent_id_with_a_trailing_newline(monkeypatch):
    import handlers.agents as agents

    monkeypatch.setattr(agents, "deps_from_env",
                        lambda: type("Deps", (), {"configs": None, "rule_index": None, "embedder": None})())
    answer = agents.handler(api_event("PUT", "/v1/agents/{agent_id}", "/v1/agents/shop\n", {"agent_id": "shop\n"},
                                      "id: shop\nname: Shop\n"), Ctx())
    assert answer["statusCode"] == 400 and json.loads(answer["body"])["error"]["code"] == "invalid_agent_id", answer
