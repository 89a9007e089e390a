"""Two request-level findings of red team 6, on `focal serve` and on the Lambda API handlers.

- A JSON body holding an integer longer than Python converts (4300 digits) is a 400 `bad_request` naming the
  number, on every route that parses JSON, not a 500 `internal` (finding 11). The publish handler answers a
  body that is not UTF-8 with a 400 too, not an unhandled error.
- A request carrying two API keys (`x-api-key` and `Authorization: Bearer`) is served only when both are the
  same principal; keys of another tenant, with other scopes, or an unknown key beside a known one are 401
  `conflicting_credentials` (serve) or Unauthorized (the API Gateway authorizer), never the first key's tenant.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from http_client import http_call

from focal.auth import Principal
from focal.cli.serve import LocalApiKeyStore, ServeSettings, build_api, serving

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "retail" / "agent.yaml"
ACME, ACME_TWIN, ACME_APPROVER, OTHER = "bodies-acme", "bodies-acme-twin", "bodies-acme-approve", "bodies-other"
TURNS = "/v1/agents/retail/sessions/{session}/turns"
BIG = "9" * 4301


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    keys = LocalApiKeyStore({ACME: Principal("acme", frozenset({"chat", "approve"})),
                             ACME_TWIN: Principal("acme", frozenset({"chat", "approve"})),
                             ACME_APPROVER: Principal("acme", frozenset({"approve"})),
                             OTHER: Principal("other", frozenset({"chat", "approve"}))})
    api = build_api([str(AGENT)], str(tmp_path_factory.mktemp("bodies") / "focal.db"), None, keys)
    with serving(api, settings=ServeSettings(rate_per_key=0)) as url:
        yield url


def _raw(base: str, method: str, path: str, body: bytes, **headers: str) -> tuple[int, dict[str, Any]]:
    status, doc, _ = http_call(base, method, path, raw=body, headers=headers)
    return status, doc


@pytest.mark.parametrize(("path", "body"), [
    (TURNS.format(session="big-1"), '{"message": "hi", "x": ' + BIG + "}"),
    (TURNS.format(session="big-2"), '{"message": "hi", "turn_id": "t1", "n": [1, {"m": -' + BIG + "}]}"),
    ("/v1/approvals/ap-big", '{"decision": ' + BIG + "}"),
])
def test_an_integer_too_long_to_convert_is_a_400_naming_it(base, path, body):
    status, doc = _raw(base, "POST", path, body.encode(), **{"x-api-key": ACME})
    assert status == 400, doc
    assert doc["error"]["code"] == "bad_request" and "number too long" in doc["error"]["message"]
    status, _ = _raw(base, "POST", TURNS.format(session="big-ok"), b'{"message": "hi", "x": %s}' % (b"9" * 4300),
                     **{"x-api-key": ACME})
    assert status == 200  # at the limit: still read


def test_the_lambda_handlers_answer_a_too_long_number_and_a_non_utf8_body_with_a_400():
    sys.path.insert(0, str(ROOT / "tests" / "functional"))
    from handlers.agents import handler as publish
    from handlers.approvals import handler as approvals
    from test_publish_agent import Ctx, event

    answer = approvals({**event("x", '{"decision": ' + BIG + "}"), "resource": "/v1/approvals/{approval_id}",
                        "path": "/v1/approvals/ap1", "httpMethod": "POST", "pathParameters": {"approval_id": "ap1"},
                        "requestContext": {"resourcePath": "/v1/approvals/{approval_id}", "httpMethod": "POST",
                                           "stage": "live", "requestId": "r1", "authorizer": {"tenant_id": "acme"}}},
                       Ctx())
    assert answer["statusCode"] == 400 and "number too long" in json.loads(answer["body"])["error"]["message"]
    for body, encoded in ((base64.b64encode(b"id: \xff\xfe").decode(), True), ("id: \ud800", False)):
        answer = publish({**event("retail", body), "isBase64Encoded": encoded}, Ctx())
        assert answer["statusCode"] == 400, answer
        assert json.loads(answer["body"])["error"] == {"code": "bad_body", "message": "the agent file must be UTF-8 text"}


@pytest.mark.parametrize("bearer", [OTHER, ACME_APPROVER, "no-such-key"], ids=["other-tenant", "other-scopes", "unknown"])
def test_two_keys_that_are_not_the_same_principal_are_refused(base, bearer):
    for headers in ({"x-api-key": ACME, "Authorization": f"Bearer {bearer}"},
                    {"x-api-key": bearer, "Authorization": f"Bearer {ACME}"}):
        status, doc = _raw(base, "POST", TURNS.format(session="two-keys"), b'{"message": "hi"}', **headers)
        assert status == 401, (headers, doc)
        assert doc["error"]["code"] == "conflicting_credentials"
        assert ACME not in json.dumps(doc) and bearer not in json.dumps(doc)  # no key echoed


@pytest.mark.parametrize("bearer", [ACME, ACME_TWIN], ids=["same-key", "same-principal"])
def test_two_keys_of_the_same_principal_are_served(base, bearer):
    status, doc = _raw(base, "POST", TURNS.format(session=f"agree-{bearer}"), b'{"message": "hi"}',
                       **{"x-api-key": ACME, "Authorization": f"Bearer {bearer}"})
    assert status == 200 and doc["success"], doc


def test_the_authorizer_refuses_two_keys_of_different_tenants(keys_table):
    from handlers import authorizer

    acme = keys_table.create("acme", ["chat"])[0]
    acme_twin = keys_table.create("acme", ["chat"])[0]
    other = keys_table.create("other", ["chat"])[0]
    arn = "arn:aws:execute-api:us-east-1:123456789012:abc123/live/POST/v1/agents/retail/sessions/s1/turns"

    def call(headers: dict[str, str]) -> dict[str, Any]:
        return authorizer.handler({"type": "REQUEST", "methodArn": arn, "httpMethod": "POST", "headers": headers,
                                   "resource": "/v1/agents/{agent_id}/sessions/{session_id}/turns"}, None)

    for headers in ({"x-api-key": acme, "Authorization": f"Bearer {other}"},
                    {"x-api-key": other, "authorization": f"bearer {acme}"},
                    {"x-api-key": acme, "Authorization": "Bearer fk_unknown"}):
        with pytest.raises(Exception, match="^Unauthorized$"):
            call(headers)
    allowed = call({"x-api-key": acme, "Authorization": f"Bearer {acme_twin}"})
    assert allowed["context"]["tenant_id"] == "acme"
    assert allowed["policyDocument"]["Statement"][0]["Effect"] == "Allow"
