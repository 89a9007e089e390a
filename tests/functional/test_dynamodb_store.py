"""DynamoDB-specific store behaviour under moto, on the table layout of the CDK stack.

Raw key layout (`TENANT#...`), '#' rejection, Query pagination and the agent config store. The
behaviour every store shares is tested against DynamoDB and SQLite alike in test_store_contract.py.
"""

from __future__ import annotations

import json
import os
import time

import pytest

from focal.adapters.dynamodb_store import DynamoConfigStore, DynamoSessionStore, DynamoTurnStore
from focal.config.loader import AgentConfigInvalid
from focal.errors import AgentNotFound
from store_fixtures import TABLES, make_record, make_session, mocked_dynamodb

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
    with mocked_dynamodb(monkeypatch) as client:
        yield client


@pytest.fixture
def sessions(ddb):
    return DynamoSessionStore(TABLES["sessions"], client=ddb)


@pytest.fixture
def turns(ddb):
    return DynamoTurnStore(TABLES["turns"], client=ddb)


@pytest.fixture
def configs(ddb):
    return DynamoConfigStore(TABLES["config"], client=ddb)


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


def test_ids_with_separator_are_rejected(sessions, turns):
    with pytest.raises(ValueError):
        sessions.get("abc#AGENT#x", "support", "s1")
    with pytest.raises(ValueError):
        sessions.save(make_session(session_id="s#1"), 0)
    with pytest.raises(ValueError):
        turns.list_for_session("acme", "sup#port", "s1")


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


def test_prefix_tenants_get_distinct_keys(ddb, sessions):
    # The behaviour (abc and abc-def never see each other's sessions, profiles or turns) is in
    # test_store_contract.py::test_tenants_with_same_ids_stay_separate; this checks the raw keys.
    sessions.save(make_session(tenant="abc", customer_id="alice"), 0)
    assert sessions.get("abc-def", "support", "s1") is None
    sessions.save(make_session(tenant="abc-def", customer_id="bob"), 0)

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
