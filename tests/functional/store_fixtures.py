"""Shared builders for the store tests: sessions, turn records and the moto DynamoDB tables.

Imported by tests/functional/test_store_contract.py, tests/functional/test_dynamodb_store.py and
tests/unit/test_sqlite_store.py (which puts this directory on sys.path itself).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from focal.models.session import Session
from focal.models.turn import TurnRecord, TurnResult

TABLES = {"sessions": "t-sessions", "profiles": "t-profiles", "turns": "t-turns", "config": "t-config"}

FAKE_AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@contextlib.contextmanager
def mocked_dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """Fake credentials, moto's mock_aws, and the tables of the CDK stack; yields the boto3 client."""
    for key, value in FAKE_AWS_ENV.items():
        monkeypatch.setenv(key, value)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        for name, table in TABLES.items():
            keys = [{"AttributeName": "pk", "KeyType": "HASH"}]
            attrs = [{"AttributeName": "pk", "AttributeType": "S"}]
            if name == "turns":
                keys.append({"AttributeName": "sk", "KeyType": "RANGE"})
                attrs.append({"AttributeName": "sk", "AttributeType": "S"})
            client.create_table(
                TableName=table, KeySchema=keys, AttributeDefinitions=attrs, BillingMode="PAY_PER_REQUEST"
            )
            if name in ("sessions", "turns"):
                client.update_time_to_live(
                    TableName=table, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires_at"}
                )
        yield client


def make_session(tenant: str = "acme", session_id: str = "s1", **kw) -> Session:
    customer_id = kw.pop("customer_id", "c1")
    return Session(tenant_id=tenant, agent_id="support", session_id=session_id, customer_id=customer_id, **kw)


def make_record(
    turn_id: str, turn_number: int, tenant: str = "acme", session_id: str = "s1", created_at: float = 1000.0, **kw
) -> TurnRecord:
    result = TurnResult(
        success=True,
        turn_id=turn_id,
        session_id=session_id,
        response=kw.pop("response", f"reply {turn_id}"),
        execution_path="respond",
        confidence=1.0,
        intent={},
        scenario=None,
        matched_rules=[],
        enforcement={},
        commands=[],
        tool_calls=[],
        model_calls=0,
        cost_usd=0.0,
        timings_ms={},
        suggested_questions=[],
        error=None,
    )
    return TurnRecord(
        tenant_id=tenant,
        agent_id="support",
        session_id=session_id,
        turn_id=turn_id,
        turn_number=turn_number,
        customer_id="c1",
        created_at=created_at,
        result=result,
        state=kw.pop("state", {"n": turn_number}),
        **kw,
    )


def dynamo_deps(agent_path, tmp_path, client=None):
    """The agent from its file, every store on DynamoDB (as wiring builds them with FOCAL_STORE=dynamodb);
    `client` None: the stores build their own (inside mocked_dynamodb)."""
    from focal.adapters.dynamodb_store import (
        DynamoApprovalStore,
        DynamoEpisodeStore,
        DynamoProfileStore,
        DynamoSessionStore,
        DynamoTurnStore,
    )
    from focal.wiring import local_deps

    deps = local_deps(agent_path, tmp_path / "focal.db")
    deps.sessions = DynamoSessionStore(TABLES["sessions"], client)
    deps.profiles = DynamoProfileStore(TABLES["profiles"], client)
    deps.turns = DynamoTurnStore(TABLES["turns"], client)
    deps.episodes = DynamoEpisodeStore(TABLES["turns"], client)
    deps.approvals = DynamoApprovalStore(TABLES["sessions"], client)
    return deps
