"""One key no longer does everything: each route needs its scope (chat, publish, approve; admin = all).

The API Gateway authorizer is called as API Gateway calls it (REQUEST type: methodArn, resource,
httpMethod, headers) against a moto keys table: a key without the route's scope gets a Deny policy
(API Gateway answers 403), an unknown route too; an Allow names exactly the called method ARN.
"""

from __future__ import annotations

import pytest

from focal.adapters.api_keys import partition_key
from focal.auth import ROUTE_SCOPES, Principal, required_scope

ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/live"
CHAT = ("POST", "/v1/agents/{agent_id}/sessions/{session_id}/turns", "/v1/agents/retail/sessions/s1/turns")
PUBLISH = ("PUT", "/v1/agents/{agent_id}", "/v1/agents/retail")
APPROVE = ("POST", "/v1/approvals/{approval_id}", "/v1/approvals/ap-1")
ROUTES = {"chat": CHAT, "publish": PUBLISH, "approve": APPROVE}


@pytest.fixture
def store(keys_table):
    return keys_table


def call(key: str, route: tuple[str, str, str], **overrides):
    from handlers import authorizer

    method, resource, path = route
    event = {"type": "REQUEST", "methodArn": f"{ARN}/{method}{path}", "resource": resource, "path": path,
             "httpMethod": method, "headers": {"x-api-key": key}, **overrides}
    return authorizer.handler(event, None)


def effect(out) -> str:
    (statement,) = out["policyDocument"]["Statement"]
    return statement["Effect"]


@pytest.mark.parametrize("scope,allowed", [
    ("chat", {"chat"}), ("publish", {"publish"}), ("approve", {"approve"}), ("admin", {"chat", "publish", "approve"}),
])
def test_each_key_reaches_only_the_routes_of_its_scope(store, scope, allowed):
    key = store.create("acme", [scope], label=scope)[0]
    for name, route in ROUTES.items():
        out = call(key, route)
        assert effect(out) == ("Allow" if name in allowed else "Deny"), (scope, name)
        assert out["policyDocument"]["Statement"][0]["Resource"] == f"{ARN}/{route[0]}{route[2]}"  # exact, no wildcard


def test_a_chat_key_can_neither_publish_nor_approve(store):
    key = store.create("acme", ["chat"])[0]
    assert effect(call(key, CHAT)) == "Allow"
    assert effect(call(key, PUBLISH)) == "Deny"
    assert effect(call(key, APPROVE)) == "Deny"
    # the context of a denial carries no scopes or customer to act on
    assert "scopes" not in call(key, APPROVE)["context"]


def test_a_publish_key_cannot_chat(store):
    key = store.create("acme", ["publish"])[0]
    assert effect(call(key, CHAT)) == "Deny"
    assert effect(call(key, PUBLISH)) == "Allow"


def test_allow_context_names_tenant_scopes_and_an_anonymous_customer(store):
    key = store.create("acme", ["chat", "approve"])[0]
    assert call(key, CHAT)["context"] == {"tenant_id": "acme", "scopes": "approve chat",
                                          "customer_id": "anonymous", "trusted_backend": "false"}


@pytest.mark.parametrize("overrides", [
    {"methodArn": f"{ARN}/GET/v1/agents/retail"},                      # no such route
    {"methodArn": f"{ARN}/DELETE/v1/agents/retail"},
    {"methodArn": f"{ARN}/PUT/v1/agents/retail/extra"},
    {"methodArn": "not-an-arn"},
    {"methodArn": f"{ARN}/POST/v1/agents/retail/sessions/s1/turns", "resource": "/v1/agents/{agent_id}"},  # disagree
    {"methodArn": f"{ARN}/POST/v1/agents/retail/sessions/s1/turns", "httpMethod": "PUT"},
])
def test_an_unknown_or_inconsistent_route_is_denied_even_to_admin(store, overrides):
    key = store.create("acme", ["admin"])[0]
    assert effect(call(key, CHAT, **overrides)) == "Deny"


def test_a_key_written_before_scopes_existed_can_do_nothing(store):
    key = "fk_legacy-key-without-scopes"
    store._client.put_item(TableName="api-keys", Item={"pk": {"S": partition_key(key)}, "tenant_id": {"S": "acme"},
                                                       "created_at": {"N": "1"}, "label": {"S": ""}})
    for route in ROUTES.values():
        assert effect(call(key, route)) == "Deny"


def test_revoked_key_is_unauthorized(store):
    key, record = store.create("acme", ["admin"])
    assert effect(call(key, CHAT)) == "Allow"
    store.revoke(record.key_id)
    with pytest.raises(Exception, match="^Unauthorized$"):
        call(key, CHAT)


def test_the_scope_table_and_principal():
    assert {required_scope(m, r) for m, r in ROUTE_SCOPES} == {"chat", "publish", "approve"}
    assert required_scope("post", CHAT[1]) == "chat" and required_scope("GET", CHAT[1]) is None
    admin, chat = Principal("acme", frozenset({"admin"})), Principal("acme", frozenset({"chat"}))
    assert all(admin.allows(s) for s in ("chat", "publish", "approve")) and not chat.allows("approve")

