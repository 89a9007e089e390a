"""The DynamoDB stores under moto, on the table layout of the CDK stack."""

from __future__ import annotations

import json
import os
import time

import boto3
import pytest
from moto import mock_aws

from focal.adapters.dynamodb_store import (
    DynamoConfigStore,
    DynamoProfileStore,
    DynamoSessionStore,
    DynamoTurnStore,
)
from focal.config.loader import AgentConfigInvalid
from focal.errors import AgentNotFound, DuplicateTurn, VersionConflict
from focal.models.session import CustomerProfile, Session
from focal.models.turn import TurnRecord, TurnResult

TABLES = {"sessions": "t-sessions", "profiles": "t-profiles", "turns": "t-turns", "config": "t-config"}

AGENT_YAML = """
id: support
name: Support
version: 3
scenarios:
  - id: refund
    name: Refund
    entry_examples: [I want a refund]
    entry_step_id: ask
    steps:
      - id: ask
        instructions: Ask for the order id.
"""


@pytest.fixture
def ddb(monkeypatch):
    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SECURITY_TOKEN": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
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


@pytest.fixture
def sessions(ddb):
    return DynamoSessionStore(TABLES["sessions"], client=ddb)


@pytest.fixture
def profiles(ddb):
    return DynamoProfileStore(TABLES["profiles"], client=ddb)


@pytest.fixture
def turns(ddb):
    return DynamoTurnStore(TABLES["turns"], client=ddb)


@pytest.fixture
def configs(ddb):
    return DynamoConfigStore(TABLES["config"], client=ddb)


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


# --- sessions ---------------------------------------------------------------------------------


def test_session_round_trip_and_raw_item(ddb, sessions):
    session = make_session(slots={"order_id": "A-1"}, expires_at=int(time.time()) + 3600)
    saved = sessions.save(session, 0)
    assert saved.version == 1 and session.version == 0

    loaded = sessions.get("acme", "support", "s1")
    assert loaded == saved and loaded.slots == {"order_id": "A-1"}

    item = ddb.get_item(
        TableName=TABLES["sessions"], Key={"pk": {"S": "TENANT#acme#AGENT#support#SESSION#s1"}}
    )["Item"]
    assert item["pk"]["S"].startswith("TENANT#acme#")
    assert item["tenant_id"] == {"S": "acme"}
    assert item["version"] == {"N": "1"}
    assert item["expires_at"] == {"N": str(session.expires_at)}
    assert json.loads(item["doc"]["S"])["slots"] == {"order_id": "A-1"}


def test_session_optimistic_locking(sessions):
    v1 = sessions.save(make_session(), 0)
    sessions.save(v1.model_copy(update={"turn_count": 1}), 1)
    with pytest.raises(VersionConflict):
        sessions.save(v1.model_copy(update={"turn_count": 99}), 1)
    loaded = sessions.get("acme", "support", "s1")
    assert loaded is not None and loaded.version == 2 and loaded.turn_count == 1


def test_session_version_zero_inserts_only_once(sessions):
    sessions.save(make_session(customer_id="first"), 0)
    with pytest.raises(VersionConflict):
        sessions.save(make_session(customer_id="second"), 0)
    loaded = sessions.get("acme", "support", "s1")
    assert loaded is not None and loaded.customer_id == "first"


def test_update_of_missing_session_conflicts(sessions):
    with pytest.raises(VersionConflict):
        sessions.save(make_session(), 2)
    assert sessions.get("acme", "support", "s1") is None


def test_expired_session_is_absent_and_can_be_recreated(sessions):
    sessions.save(make_session(expires_at=int(time.time()) - 10, customer_id="old"), 0)
    assert sessions.get("acme", "support", "s1") is None
    sessions.save(make_session(customer_id="new"), 0)
    loaded = sessions.get("acme", "support", "s1")
    assert loaded is not None and loaded.customer_id == "new"


def test_ids_with_separator_are_rejected(sessions, turns):
    with pytest.raises(ValueError):
        sessions.get("abc#AGENT#x", "support", "s1")
    with pytest.raises(ValueError):
        sessions.save(make_session(session_id="s#1"), 0)
    with pytest.raises(ValueError):
        turns.list_for_session("acme", "sup#port", "s1")


# --- profiles ---------------------------------------------------------------------------------


def test_profile_upsert(profiles):
    assert profiles.get("acme", "support", "c1") is None
    profiles.save(CustomerProfile(tenant_id="acme", agent_id="support", customer_id="c1", fields={"tier": "gold"}))
    profiles.save(CustomerProfile(tenant_id="acme", agent_id="support", customer_id="c1", fields={"tier": "silver"}))
    loaded = profiles.get("acme", "support", "c1")
    assert loaded is not None and loaded.fields == {"tier": "silver"}


# --- turns ------------------------------------------------------------------------------------


def test_turn_put_list_and_raw_keys(ddb, turns):
    record = make_record("t1", 1)
    turns.put(record)
    assert turns.list_for_session("acme", "support", "s1") == [record]
    item = ddb.get_item(
        TableName=TABLES["turns"],
        Key={"pk": {"S": "TENANT#acme#AGENT#support#SESSION#s1"}, "sk": {"S": "TURN#t1"}},
    )["Item"]
    assert item["tenant_id"] == {"S": "acme"}


def test_duplicate_turn(turns):
    turns.put(make_record("t1", 1, response="original"))
    with pytest.raises(DuplicateTurn):
        turns.put(make_record("t1", 2, response="replay"))
    assert [r.result.response for r in turns.list_for_session("acme", "support", "s1")] == ["original"]


def test_turns_ordered_by_number_not_by_sort_key(turns):
    # Sort keys order as a, b1, b2, z; turn numbers (then created_at) say otherwise.
    turns.put(make_record("z", 1))
    turns.put(make_record("a", 3))
    turns.put(make_record("b1", 2, created_at=20.0))
    turns.put(make_record("b2", 2, created_at=10.0))
    turns.put(make_record("c", 4, session_id="s2"))
    assert [r.turn_id for r in turns.list_for_session("acme", "support", "s1")] == ["z", "b2", "b1", "a"]


def test_expired_turns_are_filtered(turns):
    turns.put(make_record("old", 1, expires_at=int(time.time()) - 10))
    turns.put(make_record("new", 2, expires_at=int(time.time()) + 3600))
    assert [r.turn_id for r in turns.list_for_session("acme", "support", "s1")] == ["new"]


def test_list_for_session_follows_pages(ddb, turns):
    queries = []
    ddb.meta.events.register("after-call.dynamodb.Query", lambda **kw: queries.append(1))
    big = "x" * 250_000  # six of these exceed the 1 MB a Query page returns
    for n in range(6):
        turns.put(make_record(f"t{n}", n, state={"blob": big}))
    listed = turns.list_for_session("acme", "support", "s1")
    assert [r.turn_number for r in listed] == list(range(6))
    assert len(queries) >= 2


# --- tenant isolation -------------------------------------------------------------------------


def test_prefix_tenants_stay_separate(ddb, sessions, profiles, turns):
    sessions.save(make_session(tenant="abc", customer_id="alice"), 0)
    assert sessions.get("abc-def", "support", "s1") is None
    sessions.save(make_session(tenant="abc-def", customer_id="bob"), 0)
    a = sessions.get("abc", "support", "s1")
    b = sessions.get("abc-def", "support", "s1")
    assert a is not None and a.customer_id == "alice"
    assert b is not None and b.customer_id == "bob"

    profiles.save(CustomerProfile(tenant_id="abc", agent_id="support", customer_id="c1", fields={"x": 1}))
    assert profiles.get("abc-def", "support", "c1") is None

    turns.put(make_record("t1", 1, tenant="abc", response="for abc"))
    assert turns.list_for_session("abc-def", "support", "s1") == []
    turns.put(make_record("t1", 1, tenant="abc-def", response="for abc-def"))
    assert [r.result.response for r in turns.list_for_session("abc", "support", "s1")] == ["for abc"]
    assert [r.result.response for r in turns.list_for_session("abc-def", "support", "s1")] == ["for abc-def"]

    pks = sorted(i["pk"]["S"] for i in ddb.scan(TableName=TABLES["sessions"])["Items"])
    assert pks == ["TENANT#abc#AGENT#support#SESSION#s1", "TENANT#abc-def#AGENT#support#SESSION#s1"]


# --- agent config -----------------------------------------------------------------------------


def test_config_round_trip_and_cache(ddb, configs):
    stored = configs.put_agent("acme", AGENT_YAML)
    assert stored.id == "support"

    agent = configs.get_agent("acme", "support")
    assert agent.id == "support" and agent.version == 3
    assert agent.scenarios[0].steps[0].id == "ask"
    assert agent.base_dir == os.path.join("agents", "support")
    assert configs.get_agent("acme", "support") is agent  # parsed once per stored version

    item = ddb.get_item(TableName=TABLES["config"], Key={"pk": {"S": "TENANT#acme#AGENT#support"}})["Item"]
    assert item["yaml"]["S"] == AGENT_YAML
    assert item["version"] == {"N": "3"}

    configs.put_agent("acme", AGENT_YAML.replace("version: 3", "version: 4").replace("name: Support", "name: Help"))
    updated = configs.get_agent("acme", "support")
    assert updated.version == 4 and updated.name == "Help"


def test_config_agents_root(ddb):
    store = DynamoConfigStore(TABLES["config"], client=ddb, agents_root="/var/task/agents")
    store.put_agent("acme", AGENT_YAML)
    assert store.get_agent("acme", "support").base_dir == "/var/task/agents/support"


def test_unknown_agent_and_other_tenant(configs):
    configs.put_agent("acme", AGENT_YAML)
    with pytest.raises(AgentNotFound):
        configs.get_agent("acme", "nope")
    with pytest.raises(AgentNotFound):
        configs.get_agent("acme-2", "support")


@pytest.mark.parametrize(
    "text",
    [
        "id: x\nname: y\nscenarios:\n  - id: s\n    name: S\n    entry_step_id: missing\n    steps: []\n",
        "id: x\nname: [unclosed\n",
        "name: no id\n",
    ],
)
def test_invalid_yaml_is_rejected_and_not_stored(ddb, configs, text):
    with pytest.raises(AgentConfigInvalid):
        configs.put_agent("acme", text)
    assert ddb.scan(TableName=TABLES["config"])["Count"] == 0
