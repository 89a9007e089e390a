"""Publishing an agent in AWS: PUT /v1/agents/{agent_id} through the real handler (Powertools
resolver), the DynamoDB config table under moto, and the OpenSearch adapter on the fake client
(no OpenSearch server can run here). Then a turn's retrieve stage reads what was published,
without indexing anything itself."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from store_fixtures import TABLES, mocked_dynamodb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the `fakes` package
from fakes.opensearch import FakeOpenSearch  # noqa: E402

from focal.config.loader import load_agent  # noqa: E402
from focal.models.turn import TurnRequest  # noqa: E402
from focal.pipeline.runner import LocalRunner  # noqa: E402
from focal.retrieval.rules import rule_keys  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RETAIL_YAML = (ROOT / "examples" / "retail" / "agent.yaml").read_text(encoding="utf-8")


class Ctx:
    function_name = "agents"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:agents"
    aws_request_id = "req-1"


def event(agent_id: str, body: str, tenant: str | None = "acme", claimed_tenant: str = "evil") -> dict:
    return {
        "resource": "/v1/agents/{agent_id}", "path": f"/v1/agents/{agent_id}", "httpMethod": "PUT",
        "headers": {"content-type": "application/yaml", "x-tenant-id": claimed_tenant},
        "multiValueHeaders": {}, "queryStringParameters": {"tenant_id": claimed_tenant},
        "multiValueQueryStringParameters": None, "pathParameters": {"agent_id": agent_id},
        "stageVariables": None, "isBase64Encoded": False, "body": body,
        "requestContext": {"resourcePath": "/v1/agents/{agent_id}", "httpMethod": "PUT", "stage": "live",
                           "requestId": "r1", "authorizer": {"tenant_id": tenant} if tenant else {}},
    }


@pytest.fixture
def aws(monkeypatch):
    from focal import settings as settings_module
    from focal import wiring

    fake = FakeOpenSearch()
    with mocked_dynamodb(monkeypatch) as ddb:
        for key, value in {"FOCAL_STORE": "dynamodb", "FOCAL_CONFIG_SOURCE": "dynamodb", "FOCAL_INDEX": "opensearch",
                           "FOCAL_OPENSEARCH_ENDPOINT": "search-focal.us-east-1.es.amazonaws.com",
                           "FOCAL_TENANT": "acme", "FOCAL_SESSIONS_TABLE": TABLES["sessions"],
                           "FOCAL_PROFILES_TABLE": TABLES["profiles"], "FOCAL_TURNS_TABLE": TABLES["turns"],
                           "FOCAL_CONFIG_TABLE": TABLES["config"],
                           "FOCAL_AGENTS_ROOT": str(ROOT / "examples")}.items():
            monkeypatch.setenv(key, value)
        monkeypatch.setattr("focal.adapters.opensearch_index.opensearch_client", lambda *a, **k: fake)
        settings_module.get_settings.cache_clear()
        wiring.deps_from_env.cache_clear()
        from handlers.agents import handler

        yield handler, ddb, fake
        settings_module.get_settings.cache_clear()
        wiring.deps_from_env.cache_clear()


def answer(response: dict) -> dict:
    return json.loads(response["body"])


def test_publishing_validates_indexes_and_stores_for_the_authorised_tenant(aws):
    handler, ddb, _ = aws
    response = handler(event("retail", RETAIL_YAML), Ctx())
    assert response["statusCode"] == 200, response["body"]
    body = answer(response)
    assert body["agent_id"] == "retail" and body["indexed"]["embedded"] > 20 and body["indexed"]["deleted"] == 0

    from focal.wiring import deps_from_env

    deps = deps_from_env()
    assert deps.sync_on_turn is False
    assert deps.configs.get_agent("acme", "retail").id == "retail"
    for tenant in ("evil", "acme-other"):  # neither the claimed tenant nor a prefix sibling got anything
        assert deps.rule_index.digests(tenant, "retail") == {}
        assert ddb.get_item(TableName=TABLES["config"], Key={"pk": {"S": f"TENANT#{tenant}#AGENT#retail"}}).get("Item") is None

    again = answer(handler(event("retail", RETAIL_YAML), Ctx()))
    assert again["indexed"]["embedded"] == 0 and again["indexed"]["deleted"] == 0


def test_a_turn_reads_the_published_index_and_a_republished_change_applies_next_turn(aws):
    handler, _, fake = aws
    assert handler(event("retail", RETAIL_YAML), Ctx())["statusCode"] == 200
    from focal.wiring import deps_from_env

    runner = LocalRunner(deps_from_env())

    def ask(n: int):
        return runner.turn(TurnRequest(tenant_id="acme", agent_id="retail", session_id=f"s{n}", turn_id=str(n),
                                       message="how long does shipping take?"))

    assert "shipping_times" in ask(0).matched_rules
    changed = RETAIL_YAML.replace("  - id: shipping_times\n", "  - id: shipping_times\n    enabled: false\n")
    body = answer(handler(event("retail", changed), Ctx()))
    keys = len(rule_keys(load_agent(ROOT / "examples" / "retail" / "agent.yaml").rule("shipping_times")))  # its condition and its examples
    assert body["indexed"] == {"embedded": 0, "unchanged": body["indexed"]["unchanged"], "deleted": keys}
    assert "shipping_times" not in ask(1).matched_rules


def test_invalid_files_are_refused_with_every_problem_and_nothing_changes(aws):
    handler, _, fake = aws
    broken = RETAIL_YAML.replace("enforcement_expression: refund_amount <= 50 or is_premium",
                                 "enforcement_expression: refund_amt <= 50")
    response = handler(event("retail", broken), Ctx())
    assert response["statusCode"] == 400
    error = answer(response)["error"]
    assert error["code"] == "invalid_agent" and any("refund_amt" in p for p in error["problems"])
    from focal.wiring import deps_from_env

    assert deps_from_env().rule_index.digests("acme", "retail") == {}


@pytest.mark.parametrize("agent_id, body, tenant, status, code", [
    ("shop", RETAIL_YAML, "acme", 400, "agent_id_mismatch"),
    ("retail", "   ", "acme", 400, "empty_body"),
    ("retail", RETAIL_YAML, None, 401, "unauthorized"),
])
def test_requests_that_cannot_be_published(aws, agent_id, body, tenant, status, code):
    handler, _, _ = aws
    response = handler(event(agent_id, body, tenant=tenant), Ctx())
    assert response["statusCode"] == status and answer(response)["error"]["code"] == code


@pytest.mark.parametrize("padding, status", [(420_000, 413), (340_000, 200)])
def test_an_agent_over_the_dynamodb_item_limit_is_refused_before_indexing(aws, padding, status):
    """The body limit is 1 MB but a DynamoDB item holds 400 KB (measured on the item as stored: the text,
    its digest, keys and names): refused with 413 before anything is embedded, indexed or stored."""
    handler, ddb, fake = aws
    body = RETAIL_YAML + "\n# " + "x" * padding + "\n"  # a comment: still a valid agent, kept in the stored text
    response = handler(event("retail", body), Ctx())
    assert response["statusCode"] == status, response["body"]
    stored = ddb.get_item(TableName=TABLES["config"], Key={"pk": {"S": "TENANT#acme#AGENT#retail"}}).get("Item")
    if status == 413:
        error = answer(response)["error"]
        assert error["code"] == "agent_too_large" and "409600" in error["message"]
        assert not [name for name, _ in fake.calls if name == "bulk"] and stored is None
    else:
        assert stored is not None and [name for name, _ in fake.calls if name == "bulk"]
