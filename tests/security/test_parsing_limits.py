"""Parsing limits before any work: YAML alias bombs, deeply nested YAML and JSON, oversized bodies.

Each input is a few hundred bytes to a few kilobytes that would otherwise cost gigabytes (alias
expansion) or end in RecursionError and an empty reply (nesting). The answer must be a clear refusal.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from focal.config.loader import ALIAS_EXPANSION_BUDGET, MAX_AGENT_BYTES, parse_agent_text
from focal.safe_json import BodyTooDeep, loads_bounded

# "Billion laughs": 9 strings, each level nine aliases of the one before, 9**9 strings in all.
ALIAS_BOMB = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{b}: &{b} [{','.join(['*' + a] * 9)}]" for a, b in zip("abcdefgh", "bcdefghi", strict=True)]
) + "\n"


class Ctx:
    function_name, memory_limit_in_mb, aws_request_id = "api", 1024, "req-1"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:api"


def api_event(method: str, resource: str, path: str, params: dict[str, str], body: str, scope: str) -> dict[str, Any]:
    return {
        "resource": resource, "path": path, "httpMethod": method, "headers": {"content-type": "application/json"},
        "multiValueHeaders": {}, "queryStringParameters": None, "multiValueQueryStringParameters": None,
        "pathParameters": params, "stageVariables": None, "isBase64Encoded": False, "body": body,
        "requestContext": {"resourcePath": resource, "httpMethod": method, "stage": "live", "requestId": "r1",
                           "authorizer": {"tenant_id": "acme", "scopes": scope}},
    }


def no_deps() -> Any:
    raise AssertionError("a refused body reached the engine")


def publish(monkeypatch: pytest.MonkeyPatch, body: str) -> tuple[int, dict[str, Any]]:
    import handlers.agents as agents

    monkeypatch.setattr(agents, "deps_from_env", lambda: type("Deps", (), {"configs": None, "rule_index": None, "embedder": None})())
    response = agents.handler(api_event("PUT", "/v1/agents/{agent_id}", "/v1/agents/shop", {"agent_id": "shop"}, body, "publish"), Ctx())
    return response["statusCode"], json.loads(response["body"])


def approve(monkeypatch: pytest.MonkeyPatch, body: str) -> tuple[int, dict[str, Any]]:
    import handlers.approvals as approvals

    monkeypatch.setattr(approvals, "deps_from_env", no_deps)
    event = api_event("POST", "/v1/approvals/{approval_id}", "/v1/approvals/ap-1", {"approval_id": "ap-1"}, body, "approve")
    response = approvals.handler(event, Ctx())
    return response["statusCode"], json.loads(response["body"])


def test_an_alias_bomb_is_refused_before_it_expands():
    assert len(ALIAS_BOMB) < 400
    loaded = parse_agent_text(ALIAS_BOMB, "bomb.yaml")  # expanded, it would take minutes and gigabytes: it returns
    assert loaded.config is None and len(loaded.problems) == 1
    problem = loaded.problems[0]
    assert problem.path == "<yaml>"
    assert f"the document expands to more than {28 + ALIAS_EXPANSION_BUDGET} nodes through aliases" in problem.message


def test_an_alias_bomb_on_the_publish_route_is_a_400_naming_the_problem(monkeypatch):
    status, body = publish(monkeypatch, ALIAS_BOMB)
    assert status == 400 and body["error"]["code"] == "invalid_agent", body
    assert any(p.startswith("<yaml>: the document expands to more than") for p in body["error"]["problems"]), body


def test_a_self_referencing_alias_and_deep_yaml_nesting_are_refused():
    looped = parse_agent_text("a: &a [*a]\n")
    assert [str(p) for p in looped.problems] == ["<yaml>: the document refers to itself through an alias (line 1)"]
    deep = parse_agent_text("a: " + "[" * 3000 + "]" * 3000 + "\n")
    assert [p.message for p in deep.problems] == ["the document nests more than 64 levels deep"]


def test_an_agent_document_over_the_size_limit_is_refused_before_parsing():
    text = "id: shop\nname: Shop\n" + "# padding\n" * (MAX_AGENT_BYTES // 10)
    assert [str(p) for p in parse_agent_text(text).problems] == [
        f"<yaml>: the agent file is {len(text)} bytes; the limit is {MAX_AGENT_BYTES}"]


def test_json_nested_3000_levels_deep_gets_a_structured_400_from_the_approvals_route(monkeypatch):
    status, body = approve(monkeypatch, "[" * 3000 + "]" * 3000)
    assert status == 400, body
    assert body == {"success": False, "error": {"code": "body_too_deep",
                                                "message": "the body nests arrays/objects more than 64 levels deep"}}


def test_a_body_over_the_size_limit_gets_413_from_the_approvals_route(monkeypatch):
    status, body = approve(monkeypatch, json.dumps({"decision": "approve", "note": "x" * 100_000}))
    assert status == 413 and body["error"]["code"] == "body_too_large", body
    assert "16384 bytes" in body["error"]["message"]


def test_loads_bounded_counts_only_real_nesting():
    tricky = json.dumps({"text": "[[[[{{{{" * 50 + '\\"]]]'})
    assert loads_bounded(tricky, max_bytes=10_000, max_depth=2) == json.loads(tricky)
    with pytest.raises(BodyTooDeep):
        loads_bounded(b'{"a": [[1]]}', max_bytes=100, max_depth=2)
