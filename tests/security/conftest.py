"""Put `functions` (and `tests`, for the shared helpers) on sys.path (the package is also installed
editable; this keeps a bare checkout working)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for folder in (ROOT / "functions", ROOT / "tests"):  # tests/: helpers shared by the test tiers
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


import pytest  # noqa: E402 - after the path set-up above


@pytest.fixture
def keys_table(monkeypatch):
    """The deployed API-keys table under moto (the authorizer's store); yields the key store."""
    import boto3
    from moto import mock_aws

    from focal.adapters.api_keys import DynamoApiKeyStore

    for k, v in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
                 "FOCAL_API_KEYS_TABLE": "api-keys"}.items():
        monkeypatch.setenv(k, v)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(TableName="api-keys", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                            BillingMode="PAY_PER_REQUEST")
        from handlers import authorizer

        authorizer.reset()
        yield DynamoApiKeyStore("api-keys", client)
        authorizer.reset()


@pytest.fixture(scope="session")
def minilm():
    """The shipped English embedder (all-MiniLM-L6-v2, ONNX), loaded once."""
    from focal.adapters.onnx_embedder import shared_embedder

    return shared_embedder()


@pytest.fixture(scope="session")
def use_m():
    """The shipped multilingual embedder (USE multilingual), loaded once."""
    from focal.adapters.use_embedder import shared_multilingual_embedder

    return shared_multilingual_embedder()
