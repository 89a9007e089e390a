"""The API key authorizer: hash lookup in DynamoDB (moto), IAM policy with the tenant in context."""

from __future__ import annotations

import hashlib
import json
import logging

import boto3
import pytest
from moto import mock_aws

from focal.adapters import api_keys

METHOD_ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/live/POST/v1/agents/retail/sessions/s1/turns"


@pytest.fixture
def keys_table(monkeypatch, template_json):
    from infra_helpers import of_type

    for k, v in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(k, v)
    # the table exactly as the template declares it
    (props,) = [r["Properties"] for lid, r in of_type(template_json["Resources"], "AWS::DynamoDB::Table").items()
                if lid.startswith("ApiKeysTable")]
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(TableName="api-keys", KeySchema=props["KeySchema"],
                            AttributeDefinitions=props["AttributeDefinitions"], BillingMode="PAY_PER_REQUEST")
        monkeypatch.setenv("FOCAL_API_KEYS_TABLE", "api-keys")
        from handlers import authorizer

        authorizer.reset()
        yield client
        authorizer.reset()


def event(headers):
    return {"type": "REQUEST", "methodArn": METHOD_ARN, "headers": headers}


def test_key_is_stored_by_sha256_only(keys_table):
    store = api_keys.DynamoApiKeyStore("api-keys", keys_table)
    key = store.issue("acme", label="ci")
    items = keys_table.scan(TableName="api-keys")["Items"]
    assert len(items) == 1
    assert items[0]["pk"]["S"] == "KEY#" + hashlib.sha256(key.encode()).hexdigest()
    assert key not in str(items)
    assert store.tenant_for(key) == "acme"
    assert store.tenant_for(key + "x") is None


@pytest.mark.parametrize("header", ["x-api-key", "X-API-Key", "authorization"])
def test_authorizer_allows_with_tenant_in_context(keys_table, header, caplog):
    from handlers import authorizer

    key = api_keys.DynamoApiKeyStore("api-keys", keys_table).issue("acme")
    value = f"Bearer {key}" if header == "authorization" else key
    with caplog.at_level(logging.DEBUG):
        out = authorizer.handler(event({header: value, "content-type": "application/json"}), None)
    assert out["context"] == {"tenant_id": "acme", "scopes": "admin", "customer_id": "anonymous", "trusted_backend": "false"}
    assert out["policyDocument"]["Statement"] == [
        {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": METHOD_ARN}
    ]
    assert key not in caplog.text


@pytest.mark.parametrize(
    "headers",
    [{}, {"x-api-key": ""}, {"authorization": "Basic abc"}, {"x-api-key": "fk_unknown"}, {"x-api-key": "k" * 600}],
)
def test_authorizer_rejects_missing_or_unknown_keys(keys_table, headers):
    from handlers import authorizer

    api_keys.DynamoApiKeyStore("api-keys", keys_table).issue("acme")
    with pytest.raises(Exception, match="^Unauthorized$"):
        authorizer.handler(event(headers), None)


def test_disabled_key_is_rejected(keys_table):
    from handlers import authorizer

    store = api_keys.DynamoApiKeyStore("api-keys", keys_table)
    key = store.issue("acme")
    assert authorizer.handler(event({"x-api-key": key}), None)["context"]["tenant_id"] == "acme"
    store.disable(key)
    with pytest.raises(Exception, match="Unauthorized"):
        authorizer.handler(event({"x-api-key": key}), None)


def test_two_tenants_two_keys(keys_table):
    from handlers import authorizer

    store = api_keys.DynamoApiKeyStore("api-keys", keys_table)
    a, b = store.issue("acme"), store.issue("globex")
    assert authorizer.handler(event({"x-api-key": a}), None)["context"]["tenant_id"] == "acme"
    assert authorizer.handler(event({"Authorization": f"bearer {b}"}), None)["context"]["tenant_id"] == "globex"


def test_x_api_key_wins_over_authorization():
    assert api_keys.key_from_headers({"Authorization": "Bearer one", "x-api-key": "two"}) == "two"
    assert api_keys.key_from_headers(None) is None


def test_authorizer_results_are_never_cached(resources):
    """A cached answer (keyed by identity source only) could serve another route, whose scope differs,
    or another customer token; the Allow names exactly the called method ARN anyway."""
    from infra_helpers import of_type

    (authorizer,) = of_type(resources, "AWS::ApiGateway::Authorizer").values()
    assert authorizer["Properties"]["Type"] == "REQUEST"
    assert authorizer["Properties"]["AuthorizerResultTtlInSeconds"] == 0


def _statements(resources, role_prefix: str) -> list[dict]:
    from infra_helpers import of_type

    return [s for lid, r in of_type(resources, "AWS::IAM::Policy").items()
            if any(ref.get("Ref", "").startswith(role_prefix) for ref in r["Properties"].get("Roles", []))
            for s in r["Properties"]["PolicyDocument"]["Statement"]]


def _arn_text(resource) -> str:
    return json.dumps(resource)


def test_only_the_authorizer_reads_the_customer_token_secret(resources):
    authorizer = [s for s in _statements(resources, "AuthorizerFunction") if "secretsmanager:GetSecretValue" in str(s["Action"])]
    assert len(authorizer) == 1 and authorizer[0]["Effect"] == "Allow"
    assert "secret:focal/acme/customer_token_secret-??????" in _arn_text(authorizer[0]["Resource"])
    for role in ("ToolsFunction", "ApprovalsFunction"):
        statements = [s for s in _statements(resources, role) if "secretsmanager:GetSecretValue" in str(s["Action"])]
        denies = [s for s in statements if s["Effect"] == "Deny"]
        assert denies and "customer_token_secret*" in _arn_text(denies[0]["Resource"]), role
