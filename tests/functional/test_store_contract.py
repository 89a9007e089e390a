"""The store ports' contract, run against every adapter: SQLite (embedded) and DynamoDB (under moto).

Sessions: round trips, optimistic locking, create-once at version 0, expiry. Profiles: upsert.
Turns: idempotency (DuplicateTurn), ordering, expiry. Episodes: newest first, bounded, expiry,
per customer. Tenant isolation across all four.
Adapter-specific behaviour stays in tests/unit/test_sqlite_store.py and tests/functional/test_dynamodb_store.py.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import pytest

from focal.adapters.dynamodb_store import (
    DynamoApprovalStore,
    DynamoEpisodeStore,
    DynamoProfileStore,
    DynamoSessionStore,
    DynamoTurnStore,
)
from focal.adapters.sqlite_store import (
    SqliteApprovalStore,
    SqliteDatabase,
    SqliteEpisodeStore,
    SqliteProfileStore,
    SqliteSessionStore,
    SqliteTurnStore,
)
from focal.errors import DuplicateTurn, VersionConflict
from focal.models.approval import ApprovalRequest
from focal.models.memory import Episode
from focal.models.session import CustomerProfile
from focal.ports import ApprovalStore, EpisodeStore, ProfileStore, SessionStore, TurnStore
from store_fixtures import TABLES, make_record, make_session, mocked_dynamodb


class Stores(NamedTuple):
    sessions: SessionStore
    profiles: ProfileStore
    turns: TurnStore
    episodes: EpisodeStore
    approvals: ApprovalStore


@pytest.fixture(params=["sqlite", "dynamodb"])
def stores(request, monkeypatch):
    if request.param == "sqlite":
        db = SqliteDatabase(":memory:")
        yield Stores(SqliteSessionStore(db), SqliteProfileStore(db), SqliteTurnStore(db), SqliteEpisodeStore(db),
                     SqliteApprovalStore(db))
        db.close()
    else:
        with mocked_dynamodb(monkeypatch) as client:
            yield Stores(
                DynamoSessionStore(TABLES["sessions"], client=client),
                DynamoProfileStore(TABLES["profiles"], client=client),
                DynamoTurnStore(TABLES["turns"], client=client),
                DynamoEpisodeStore(TABLES["turns"], client=client),
                DynamoApprovalStore(TABLES["sessions"], client=client),
            )


@pytest.fixture
def sessions(stores):
    return stores.sessions


@pytest.fixture
def profiles(stores):
    return stores.profiles


@pytest.fixture
def turns(stores):
    return stores.turns


@pytest.fixture
def episodes(stores):
    return stores.episodes


def episode(n: int, tenant: str = "acme", customer: str = "c1", expires_at: int | None = None) -> Episode:
    return Episode(tenant_id=tenant, agent_id="support", customer_id=customer, session_id=f"s{n}", turn_id=f"t{n}",
                   created_at=1000.0 + n, asked=f"question {n}", decided="respond", embedding=[0.6, 0.8],
                   expires_at=expires_at)


def test_episodes_newest_first_bounded_and_per_customer(episodes):
    for n in range(5):
        episodes.put(episode(n))
    episodes.put(episode(9, customer="c2"))
    got = episodes.recent("acme", "support", "c1", limit=3)
    assert [e.turn_id for e in got] == ["t4", "t3", "t2"]
    assert got[0].embedding == [0.6, 0.8] and got[0].asked == "question 4"
    assert [e.turn_id for e in episodes.recent("acme", "support", "c2", limit=10)] == ["t9"]


def test_expired_episodes_are_filtered(episodes):
    episodes.put(episode(1, expires_at=int(time.time()) - 10))
    episodes.put(episode(2, expires_at=int(time.time()) + 3600))
    assert [e.turn_id for e in episodes.recent("acme", "support", "c1", limit=10)] == ["t2"]


# --- sessions ---------------------------------------------------------------------------------


def test_session_round_trip_bumps_version(sessions):
    session = make_session(slots={"order_id": "A-1"}, active_scenario_id="refund")
    session.remember("user", "hello")

    saved = sessions.save(session, expected_version=0)

    assert saved.version == 1
    assert session.version == 0  # the caller's object is not mutated
    loaded = sessions.get("acme", "support", "s1")
    assert loaded is not None
    assert loaded.version == 1
    assert loaded.slots == {"order_id": "A-1"}
    assert loaded.active_scenario_id == "refund"
    assert [h.text for h in loaded.history] == ["hello"]
    assert loaded == saved


def test_session_get_unknown_is_none(sessions):
    assert sessions.get("acme", "support", "nope") is None


def test_session_update_with_expected_version(sessions):
    first = sessions.save(make_session(), 0)
    first.turn_count = 5
    second = sessions.save(first, expected_version=1)
    assert second.version == 2
    loaded = sessions.get("acme", "support", "s1")
    assert loaded is not None and loaded.version == 2 and loaded.turn_count == 5


def test_stale_write_raises_version_conflict_and_does_not_land(sessions):
    v1 = sessions.save(make_session(), 0)
    winner = v1.model_copy(update={"turn_count": 1})
    loser = v1.model_copy(update={"turn_count": 99})
    sessions.save(winner, expected_version=1)

    with pytest.raises(VersionConflict):
        sessions.save(loser, expected_version=1)

    loaded = sessions.get("acme", "support", "s1")
    assert loaded is not None and loaded.version == 2 and loaded.turn_count == 1


def test_version_zero_inserts_only_once(sessions):
    sessions.save(make_session(customer_id="first"), 0)
    with pytest.raises(VersionConflict):
        sessions.save(make_session(customer_id="second"), 0)
    loaded = sessions.get("acme", "support", "s1")
    assert loaded is not None and loaded.customer_id == "first" and loaded.version == 1


@pytest.mark.parametrize("expected_version", [2, 3])
def test_update_of_missing_session_conflicts(sessions, expected_version):
    with pytest.raises(VersionConflict):
        sessions.save(make_session(), expected_version=expected_version)
    assert sessions.get("acme", "support", "s1") is None


@pytest.mark.parametrize("new_ttl", [None, 3600], ids=["recreated-without-expiry", "recreated-with-expiry"])
def test_expired_session_is_absent_and_can_be_recreated(sessions, new_ttl):
    sessions.save(make_session(expires_at=int(time.time()) - 10, customer_id="old"), 0)
    assert sessions.get("acme", "support", "s1") is None

    expires_at = None if new_ttl is None else int(time.time()) + new_ttl
    fresh = sessions.save(make_session(expires_at=expires_at, customer_id="new"), 0)
    assert fresh.version == 1
    loaded = sessions.get("acme", "support", "s1")
    assert loaded is not None and loaded.customer_id == "new"


def test_unexpired_session_is_present(sessions):
    sessions.save(make_session(expires_at=int(time.time()) + 3600), 0)
    assert sessions.get("acme", "support", "s1") is not None


# --- profiles ---------------------------------------------------------------------------------


def test_profile_upsert(profiles):
    assert profiles.get("acme", "support", "c1") is None
    profiles.save(CustomerProfile(tenant_id="acme", agent_id="support", customer_id="c1", fields={"tier": "gold"}))
    loaded = profiles.get("acme", "support", "c1")
    assert loaded is not None and loaded.fields == {"tier": "gold"}

    profiles.save(CustomerProfile(tenant_id="acme", agent_id="support", customer_id="c1", fields={"tier": "silver"}))
    loaded = profiles.get("acme", "support", "c1")
    assert loaded is not None and loaded.fields == {"tier": "silver"}


# --- turns ------------------------------------------------------------------------------------


def test_turn_round_trip(turns):
    record = make_record("t1", 1, response="hi there")
    turns.put(record)
    listed = turns.list_for_session("acme", "support", "s1")
    assert listed == [record]
    assert listed[0].result.response == "hi there"


def test_duplicate_turn(turns):
    turns.put(make_record("t1", 1, response="original"))
    with pytest.raises(DuplicateTurn):
        turns.put(make_record("t1", 2, response="replay"))
    listed = turns.list_for_session("acme", "support", "s1")
    assert [r.result.response for r in listed] == ["original"]


def test_turns_ordered_by_number_then_created_at(turns):
    # Neither turn id order (the DynamoDB sort key: a, b1, b2, z) nor insertion order nor
    # created_at alone matches the expected order.
    turns.put(make_record("a", 3, created_at=1.0))
    turns.put(make_record("b1", 2, created_at=20.0))
    turns.put(make_record("z", 1, created_at=50.0))
    turns.put(make_record("b2", 2, created_at=10.0))
    turns.put(make_record("other", 1, session_id="s2"))
    assert [r.turn_id for r in turns.list_for_session("acme", "support", "s1")] == ["z", "b2", "b1", "a"]
    assert [r.turn_id for r in turns.list_for_session("acme", "support", "s2")] == ["other"]


def test_expired_turns_are_filtered(turns):
    turns.put(make_record("old", 1, expires_at=int(time.time()) - 10))
    turns.put(make_record("new", 2, expires_at=int(time.time()) + 3600))
    assert [r.turn_id for r in turns.list_for_session("acme", "support", "s1")] == ["new"]


# --- tenant isolation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tenant_a", "tenant_b"),
    [("tenant-a", "tenant-b"), ("abc", "abc-def")],  # abc is a string prefix of abc-def
)
def test_tenants_with_same_ids_stay_separate(sessions, profiles, turns, episodes, tenant_a, tenant_b):
    sessions.save(make_session(tenant=tenant_a, customer_id="alice"), 0)
    assert sessions.get(tenant_b, "support", "s1") is None

    # B can create its own session with the same ids: A's row does not conflict with it.
    sessions.save(make_session(tenant=tenant_b, customer_id="bob"), 0)
    a = sessions.get(tenant_a, "support", "s1")
    b = sessions.get(tenant_b, "support", "s1")
    assert a is not None and a.customer_id == "alice"
    assert b is not None and b.customer_id == "bob"

    # Updating B does not touch A.
    sessions.save(b.model_copy(update={"turn_count": 7}), 1)
    a = sessions.get(tenant_a, "support", "s1")
    assert a is not None and a.turn_count == 0 and a.version == 1

    profiles.save(CustomerProfile(tenant_id=tenant_a, agent_id="support", customer_id="c1", fields={"x": 1}))
    assert profiles.get(tenant_b, "support", "c1") is None

    turns.put(make_record("t1", 1, tenant=tenant_a, response=f"for {tenant_a}"))
    assert turns.list_for_session(tenant_b, "support", "s1") == []
    turns.put(make_record("t1", 1, tenant=tenant_b, response=f"for {tenant_b}"))  # same turn id: no DuplicateTurn
    assert [r.result.response for r in turns.list_for_session(tenant_a, "support", "s1")] == [f"for {tenant_a}"]
    assert [r.result.response for r in turns.list_for_session(tenant_b, "support", "s1")] == [f"for {tenant_b}"]

    episodes.put(episode(1, tenant=tenant_a))
    assert episodes.recent(tenant_b, "support", "c1", limit=10) == []


# --- approvals (seed 004) ----------------------------------------------------------------------


@pytest.fixture
def approvals(stores):
    return stores.approvals


def approval_request(approval_id: str = "apr-1", tenant: str = "acme", created_at: float = 1000.0) -> ApprovalRequest:
    return ApprovalRequest(approval_id=approval_id, tenant_id=tenant, agent_id="support", session_id="s1",
                           customer_id="c1", turn_id="t1", tool_id="issue_refund", tools=["issue_refund"],
                           step="refund.confirm_refund", arguments={"order_id": "A1001"}, confidence=0.79,
                           confidence_factors={"goal_understanding": 0.7}, created_at=created_at,
                           expires_at=created_at + 300)


def test_approval_round_trip_and_create_once(approvals):
    approvals.create(approval_request())
    got = approvals.get("acme", "apr-1", now=1001.0)
    assert got == approval_request()
    with pytest.raises(ValueError):
        approvals.create(approval_request())
    assert approvals.get("acme", "apr-unknown", now=1001.0) is None


def test_approval_transition_is_conditional_exactly_once(approvals):
    approvals.create(approval_request())
    won = approvals.transition("acme", "apr-1", "awaiting_approval", "approved", now=1010.0)
    assert won is not None and won.state == "approved" and won.decided_at == 1010.0
    assert approvals.transition("acme", "apr-1", "awaiting_approval", "approved", now=1011.0) is None
    assert approvals.transition("acme", "apr-1", "awaiting_approval", "denied", now=1011.0) is None
    got = approvals.get("acme", "apr-1", now=2000.0)  # decided: stays approved after the deadline
    assert got.state == "approved" and got.decided_at == 1010.0
    approvals.set_outcome("acme", "apr-1", {"ran": [{"tool_id": "issue_refund", "status": "ok"}]})
    got = approvals.get("acme", "apr-1", now=2000.0)
    assert got.state == "approved" and got.outcome == {"ran": [{"tool_id": "issue_refund", "status": "ok"}]}


def test_approval_past_its_deadline_reads_expired_and_cannot_be_decided(approvals):
    approvals.create(approval_request())
    assert approvals.get("acme", "apr-1", now=1300.0).state == "awaiting_approval"  # the deadline itself is in time
    assert approvals.get("acme", "apr-1", now=1300.5).state == "expired"
    assert approvals.transition("acme", "apr-1", "awaiting_approval", "approved", now=1301.0) is None
    assert approvals.transition("acme", "apr-1", "awaiting_approval", "denied", now=1301.0) is None
    marked = approvals.transition("acme", "apr-1", "awaiting_approval", "expired", now=1301.0, outcome={"ran": []})
    assert marked is not None and marked.state == "expired"
    assert approvals.transition("acme", "apr-1", "awaiting_approval", "expired", now=1302.0) is None
    assert approvals.get("acme", "apr-1", now=1302.0).outcome == {"ran": []}


def test_approvals_of_tenants_stay_separate(approvals):
    approvals.create(approval_request(tenant="acme"))
    approvals.create(approval_request(tenant="acme-eu"))
    assert approvals.transition("acme", "apr-1", "awaiting_approval", "denied", now=1001.0) is not None
    assert approvals.get("acme-eu", "apr-1", now=1001.0).state == "awaiting_approval"
    assert approvals.get("other", "apr-1", now=1001.0) is None
