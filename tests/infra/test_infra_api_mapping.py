"""The turn route's request mapping, rendered for real: the synthesized template's Velocity text runs in
`airspeed` with API Gateway's `$util`, `$input` and `$context` (tests/infra/vtl.py), for hostile input,
the customer decision, the turn id (body, Idempotency-Key, request id) and ids refused at the gateway.
"""

from __future__ import annotations

import json

import pytest

from infra_helpers import method as api_method
from vtl import escape_javascript, render

ARN = "arn:aws:states:us-east-1:111111111111:stateMachine:turns"
AUTH = {"tenant_id": "acme", "customer_id": "anonymous", "trusted_backend": "false"}
PATH = {"agent_id": "retail", "session_id": "s-1"}


@pytest.fixture(scope="module")
def request_template(resources) -> str:
    tpl = api_method(resources, "POST", "turns")["Properties"]["Integration"]["RequestTemplates"]["application/json"]
    sep, parts = tpl["Fn::Join"]
    return sep.join(p if isinstance(p, str) else ARN for p in parts)


def start_request(template: str, *, body: dict, path: dict | None = None, headers: dict | None = None,
                  authorizer: dict | None = None) -> dict:
    text, status = render(template, body=body, path=path or PATH, headers=headers,
                          authorizer=authorizer or AUTH, request_id="req-123")
    assert status is None
    return json.loads(text, object_pairs_hook=_no_duplicates)


def execution_input(template: str, **kwargs) -> dict:
    document = start_request(template, **kwargs)
    assert document["stateMachineArn"] == ARN and "name" not in document
    return json.loads(document["input"], object_pairs_hook=_no_duplicates)["request"]


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"duplicate keys {keys}"
    return dict(pairs)


HOSTILE = [
    "plain",
    'He said "refund me" \\ now',
    "it's O'Brien's order / #42",
    "line one\nline two\ttabbed\r",
    "café — ünïcödé 😀 注文",
    '", "tenant_id": "evil", "x": "',
    '@@tenant_id@@: @@evil@@',
    "$context.authorizer.tenant_id #set($x = 1)",
    "\\'\\\"",
]


@pytest.mark.parametrize("message", HOSTILE)
def test_any_message_round_trips_and_cannot_inject_keys(request_template, message):
    request = execution_input(request_template, body={"message": message})
    assert request == {"tenant_id": "acme", "agent_id": "retail", "session_id": "s-1", "customer_id": "anonymous",
                       "turn_id": "req-123", "message": message}


def test_the_tenant_comes_from_the_authorizer_only(request_template):
    request = execution_input(request_template, body={"message": "hi", "tenant_id": "evil"},
                              authorizer={**AUTH, "tenant_id": "acme"})
    assert request["tenant_id"] == "acme"


def test_escaping_once_would_not_be_enough():
    """Guard for the emulation: with one pass, a quoted message breaks the inner document."""
    once = escape_javascript('say "hi"').replace("\\'", "'")
    outer = json.loads('{"input": "{\\"message\\": \\"' + once + '\\"}"}')
    with pytest.raises(json.JSONDecodeError):
        json.loads(outer["input"])
    twice = escape_javascript(once).replace("\\'", "'")
    outer = json.loads('{"input": "{\\"message\\": \\"' + twice + '\\"}"}')
    assert json.loads(outer["input"]) == {"message": 'say "hi"'}


@pytest.mark.parametrize("authorizer,body,expected", [
    ({"customer_id": "anonymous", "trusted_backend": "false"}, {"customer_id": "c-100"}, "anonymous"),
    ({"customer_id": "c-200", "trusted_backend": "false"}, {"customer_id": "c-100"}, "c-200"),
    ({"customer_id": "anonymous", "trusted_backend": "true"}, {"customer_id": "c-100"}, "c-100"),
    ({"customer_id": "c-200", "trusted_backend": "true"}, {}, "c-200"),
    ({}, {"customer_id": "c-100"}, "anonymous"),
    ({"trusted_backend": "TRUE"}, {"customer_id": "c-100"}, "anonymous"),
])
def test_the_customer_comes_from_the_authorizer_not_the_body(request_template, authorizer, body, expected):
    request = execution_input(request_template, body={"message": "hi", **body},
                              authorizer={"tenant_id": "acme", **authorizer})
    assert request["customer_id"] == expected


@pytest.mark.parametrize("body,headers,expected", [
    ({"turn_id": "t-body"}, {"Idempotency-Key": "k-header"}, "t-body"),
    ({}, {"Idempotency-Key": "k-header"}, "k-header"),
    ({}, {"idempotency-key": "k-lower"}, "k-lower"),
    ({}, {}, "req-123"),
])
def test_the_turn_id_is_the_bodys_else_the_idempotency_key_else_the_request_id(request_template, body, headers,
                                                                              expected):
    assert execution_input(request_template, body={"message": "hi", **body}, headers=headers)["turn_id"] == expected


@pytest.mark.parametrize("path,headers,body", [
    ({"agent_id": "retail#1", "session_id": "s-1"}, {}, {}),
    ({"agent_id": "retail", "session_id": "s 1"}, {}, {}),
    ({"agent_id": "retail", "session_id": "x" * 129}, {}, {}),
    ({"agent_id": "", "session_id": "s-1"}, {}, {}),
    ({"agent_id": "retail", "session_id": "s-1"}, {"Idempotency-Key": "TENANT#other"}, {}),
    ({"agent_id": "retail", "session_id": "s-1"}, {}, {"turn_id": "a/b"}),
])
def test_invalid_ids_start_no_execution(request_template, path, headers, body):
    """StartSyncExecution refuses the invalid execution name (InvalidName, 400) before anything runs; the
    4xx response turns that into 400 invalid_id (test_infra_api_responses.py)."""
    from focal_infra.api_mapping import INVALID_ID_NAME

    document = start_request(request_template, body={"message": "hi", **body}, path=path, headers=headers)
    assert document == {"stateMachineArn": ARN, "name": INVALID_ID_NAME, "input": "{}"}
    assert not INVALID_ID_NAME.replace(" ", "").isspace() and " " in INVALID_ID_NAME  # not a valid execution name


def test_valid_ids_with_every_allowed_character(request_template):
    request = execution_input(request_template, body={"message": "hi", "turn_id": "T:1.2_3-x"},
                              path={"agent_id": "Retail_2.v1", "session_id": "s:1-" + "x" * 120})
    assert request["turn_id"] == "T:1.2_3-x" and request["agent_id"] == "Retail_2.v1"


def test_the_body_model_holds_turn_id_to_the_same_pattern(resources):
    from focal_infra.api_mapping import ID_PATTERN
    from infra_helpers import of_type

    (model,) = of_type(resources, "AWS::ApiGateway::Model").values()
    assert model["Properties"]["Schema"]["properties"]["turn_id"]["pattern"] == f"^{ID_PATTERN}$"
