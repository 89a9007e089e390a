"""Tenant isolation at the API level: two API keys, two tenants whose ids share a prefix ("abc" and
"abc-def"), every request carrying only what the authorizer put in its context.

The real authorizer maps each key (stored hashed) to its tenant; the real publish and approval
handlers (Powertools resolvers) and the real pipeline run on moto DynamoDB tables and the OpenSearch
adapter over the fake client, built by `deps_from_env` from FOCAL_* variables as in a Lambda. A turn
reaches the state machine as `{"request": {"tenant_id": <authorizer context>, ...}}` (the request
mapping, tests/infra/test_infra_stack.py, ignores any tenant in the body); here that request runs
through the local runner. Store-level isolation: tests/functional/test_store_contract.py.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from store_fixtures import TABLES, mocked_dynamodb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the `fakes` package
from fakes.opensearch import FakeOpenSearch  # noqa: E402

from focal.models.turn import TurnRequest, TurnResult  # noqa: E402
from focal.pipeline.runner import LocalRunner  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RETAIL_YAML = (ROOT / "examples" / "retail" / "agent.yaml").read_text(encoding="utf-8")
A, B = "abc", "abc-def"  # B's id starts with A's
KEYS_TABLE = "t-api-keys"


class Ctx:
    function_name, memory_limit_in_mb, aws_request_id = "api", 1024, "req-1"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:api"


def api_event(method: str, resource: str, path: str, params: dict, body: str, tenant: str, claimed: str) -> dict:
    """As API Gateway delivers it after the authorizer allowed `tenant`; `claimed` is what an attacker
    puts in a header, the query string and the body."""
    return {"resource": resource, "path": path, "httpMethod": method,
            "headers": {"content-type": "application/yaml" if method == "PUT" else "application/json",
                        "x-tenant-id": claimed},
            "multiValueHeaders": {}, "queryStringParameters": {"tenant_id": claimed},
            "multiValueQueryStringParameters": None, "pathParameters": params, "stageVariables": None,
            "isBase64Encoded": False, "body": body,
            "requestContext": {"resourcePath": resource, "httpMethod": method, "stage": "live", "requestId": "r1",
                               "authorizer": {"tenant_id": tenant}}}


@pytest.fixture
def api(monkeypatch):
    from focal import settings as settings_module
    from focal import wiring

    fake = FakeOpenSearch()
    with mocked_dynamodb(monkeypatch) as ddb:
        ddb.create_table(TableName=KEYS_TABLE, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
        for key, value in {"FOCAL_STORE": "dynamodb", "FOCAL_CONFIG_SOURCE": "dynamodb", "FOCAL_INDEX": "opensearch",
                           "FOCAL_OPENSEARCH_ENDPOINT": "search-focal.us-east-1.es.amazonaws.com",
                           "FOCAL_TENANT": "shared", "FOCAL_SESSIONS_TABLE": TABLES["sessions"],
                           "FOCAL_PROFILES_TABLE": TABLES["profiles"], "FOCAL_TURNS_TABLE": TABLES["turns"],
                           "FOCAL_CONFIG_TABLE": TABLES["config"], "FOCAL_API_KEYS_TABLE": KEYS_TABLE,
                           "FOCAL_AGENTS_ROOT": str(ROOT / "examples")}.items():
            monkeypatch.setenv(key, value)
        monkeypatch.setattr("focal.adapters.opensearch_index.opensearch_client", lambda *a, **k: fake)
        settings_module.get_settings.cache_clear()
        wiring.deps_from_env.cache_clear()
        from handlers import authorizer

        authorizer.reset()
        from focal.adapters.api_keys import DynamoApiKeyStore

        keys = DynamoApiKeyStore(KEYS_TABLE, ddb)
        yield Api(keys.issue(A, "tenant A"), keys.issue(B, "tenant B"), ddb, fake)
        authorizer.reset()
        settings_module.get_settings.cache_clear()
        wiring.deps_from_env.cache_clear()


class Api:
    def __init__(self, key_a: str, key_b: str, ddb, fake: FakeOpenSearch):
        self.keys = {A: key_a, B: key_b}
        self.ddb, self.fake = ddb, fake

    def authorize(self, api_key: str) -> str:
        """The tenant the real authorizer puts in the context for this key."""
        from handlers.authorizer import handler

        answer = handler({"headers": {"x-api-key": api_key, "x-tenant-id": A},
                          "methodArn": "arn:aws:execute-api:us-east-1:1:api/live/POST/v1/agents/retail/sessions/s1/turns"}, None)
        assert answer["policyDocument"]["Statement"][0]["Effect"] == "Allow"
        return answer["context"]["tenant_id"]

    def publish(self, api_key: str, yaml_text: str) -> dict:
        from handlers.agents import handler

        tenant = self.authorize(api_key)
        event = api_event("PUT", "/v1/agents/{agent_id}", "/v1/agents/retail", {"agent_id": "retail"}, yaml_text,
                          tenant, claimed=A if tenant == B else B)
        return handler(event, Ctx())

    def approve(self, api_key: str, approval_id: str) -> tuple[int, dict]:
        from handlers.approvals import handler

        tenant = self.authorize(api_key)
        body = json.dumps({"decision": "approve", "tenant_id": A if tenant == B else B})
        event = api_event("POST", "/v1/approvals/{approval_id}", f"/v1/approvals/{approval_id}",
                          {"approval_id": approval_id}, body, tenant, claimed=A if tenant == B else B)
        response = handler(event, Ctx())
        return response["statusCode"], json.loads(response["body"])

    def turn(self, api_key: str, session: str, turn_id: str, message: str, customer: str = "c-100") -> TurnResult:
        from focal.wiring import deps_from_env

        request = TurnRequest(tenant_id=self.authorize(api_key), agent_id="retail", session_id=session,
                              customer_id=customer, turn_id=turn_id, message=message)
        return LocalRunner(deps_from_env()).turn(request)

    def config_item(self, tenant: str) -> dict | None:
        return self.ddb.get_item(TableName=TABLES["config"],
                                 Key={"pk": {"S": f"TENANT#{tenant}#AGENT#retail"}}).get("Item")


def test_each_key_maps_to_its_own_tenant_and_claims_are_ignored(api):
    from handlers.authorizer import handler

    assert api.authorize(api.keys[A]) == A and api.authorize(api.keys[B]) == B
    for headers in ({"x-api-key": "fk_unknown", "x-tenant-id": A}, {"x-tenant-id": A}, {}):
        with pytest.raises(Exception, match="Unauthorized"):
            handler({"headers": headers, "methodArn": "arn:x"}, None)
    # The key is stored only as its hash.
    items = api.ddb.scan(TableName=KEYS_TABLE)["Items"]
    assert len(items) == 2 and not any(key in json.dumps(items) for key in api.keys.values())


def test_publishing_under_b_never_touches_a_config_or_index(api):
    from focal.wiring import deps_from_env

    assert api.publish(api.keys[A], RETAIL_YAML)["statusCode"] == 200
    a_item = api.config_item(A)
    index = deps_from_env().rule_index
    a_digests = index.digests(A, "retail")
    assert a_digests

    changed = RETAIL_YAML.replace("  - id: shipping_times\n", "  - id: shipping_times\n    enabled: false\n")
    assert api.publish(api.keys[B], changed)["statusCode"] == 200
    assert api.config_item(A) == a_item  # byte for byte
    assert index.digests(A, "retail") == a_digests
    assert "shipping_times" in a_digests and "shipping_times" not in index.digests(B, "retail")
    agents = deps_from_env().configs
    assert agents.get_agent(A, "retail").rule("shipping_times").enabled is True
    assert agents.get_agent(B, "retail").rule("shipping_times") is None or not agents.get_agent(
        B, "retail").rule("shipping_times").enabled
    # Every document written for B carries B's tenant id; none of A's was rewritten or deleted.
    bulk_docs = [line for name, call in api.fake.calls if name == "bulk" for line in call["body"] if "tenant_id" in line]
    assert bulk_docs and {d["tenant_id"] for d in bulk_docs} == {A, B}


def test_b_cannot_use_a_agent_before_publishing_its_own(api):
    assert api.publish(api.keys[A], RETAIL_YAML)["statusCode"] == 200
    result = api.turn(api.keys[B], "s1", "b-1", "how long does shipping take?")
    assert result.success is False and result.execution_path == "fallback"
    assert result.error["code"] == "agent_not_found" and result.error["stage"] == "sensor"  # the gateway's 404
    assert api.ddb.scan(TableName=TABLES["sessions"])["Items"] == [] or all(
        item["tenant_id"]["S"] == B for item in api.ddb.scan(TableName=TABLES["sessions"])["Items"])


def test_b_cannot_read_or_write_a_sessions_profiles_or_turns(api):
    from focal.models.session import CustomerProfile
    from focal.wiring import deps_from_env

    for key in (api.keys[A], api.keys[B]):
        assert api.publish(key, RETAIL_YAML)["statusCode"] == 200
    deps = deps_from_env()
    deps.profiles.save(CustomerProfile(tenant_id=A, agent_id="retail", customer_id="c-100", fields={"is_premium": True}))

    # A: a Premium customer may be promised the $75 refund of order A1002; the flow waits for "yes".
    a1 = api.turn(api.keys[A], "s1", "a-1", "I want a refund for order A1002")
    assert a1.success and a1.enforcement["violations"] == [] and "$75" in a1.response
    a_session = deps.sessions.get(A, "retail", "s1")
    a_turns = deps.turns.list_for_session(A, "retail", "s1")

    # B: the same session id, customer id and message. B does not see A's profile (not Premium: the
    # refund is blocked), nor A's session (a fresh flow), nor A's turns.
    b1 = api.turn(api.keys[B], "s1", "b-1", "I want a refund for order A1002")
    assert b1.success and "refund_cap" in [v["rule_id"] for v in b1.enforcement["violations"]]
    assert "$75" not in b1.response
    b_records = deps.turns.list_for_session(B, "retail", "s1")
    assert [r.turn_id for r in b_records] == ["b-1"] and b_records[0].turn_number == 1
    assert b_records[0].state["profile"] is None or b_records[0].state["profile"]["fields"].get("is_premium") is not True
    # B saying "yes" confirms nothing of A's: A's session and turns are exactly as they were.
    b2 = api.turn(api.keys[B], "s1", "b-2", "yes")
    assert not [t for t in b2.tool_calls if t["tool_id"] == "issue_refund" and t["arguments"].get("amount") == 75]
    assert deps.sessions.get(A, "retail", "s1") == a_session
    assert [r.turn_id for r in deps.turns.list_for_session(A, "retail", "s1")] == [r.turn_id for r in a_turns]
    assert deps.profiles.get(A, "retail", "c-100").fields == {"is_premium": True}
    b_profile = deps.profiles.get(B, "retail", "c-100")
    assert b_profile is None or b_profile.fields.get("is_premium") is not True
    # Every item either tenant wrote carries its own tenant id under its own key prefix.
    for table in (TABLES["sessions"], TABLES["turns"], TABLES["profiles"]):
        for item in api.ddb.scan(TableName=table)["Items"]:
            assert item["pk"]["S"].startswith(f"TENANT#{item['tenant_id']['S']}#")


def test_b_cannot_answer_a_approval(api):
    from focal.models.approval import ApprovalRequest
    from focal.wiring import deps_from_env

    now = time.time()
    deps_from_env().approvals.create(ApprovalRequest(
        approval_id="apr-1", tenant_id=A, agent_id="retail", session_id="s1", customer_id="c-100", turn_id="a-1",
        tool_id="issue_refund", created_at=now, expires_at=now + 600))
    status, body = api.approve(api.keys[B], "apr-1")
    assert status == 404 and body["error"]["code"] == "not_found"
    unknown_status, unknown = api.approve(api.keys[B], "apr-nope")
    assert unknown_status == 404 and unknown["error"]["message"].replace("apr-nope", "apr-1") == body["error"]["message"]
    stored = deps_from_env().approvals.get(A, "apr-1", time.time())
    assert stored.state == "awaiting_approval" and stored.decided_at is None
