"""The embedded SQLite stores: round trips, optimistic locking, turn idempotency, tenant isolation."""

from __future__ import annotations

import threading
import time

import pytest

from focal.adapters.sqlite_store import (
    SqliteDatabase,
    SqliteProfileStore,
    SqliteSessionStore,
    SqliteTurnStore,
    open_sqlite_stores,
)
from focal.errors import DuplicateTurn, VersionConflict
from focal.models.session import CustomerProfile, Session
from focal.models.turn import TurnRecord, TurnResult


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
        state={"n": turn_number},
        **kw,
    )


@pytest.fixture
def db():
    database = SqliteDatabase(":memory:")
    yield database
    database.close()


@pytest.fixture
def sessions(db):
    return SqliteSessionStore(db)


@pytest.fixture
def profiles(db):
    return SqliteProfileStore(db)


@pytest.fixture
def turns(db):
    return SqliteTurnStore(db)


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


def test_update_of_missing_session_conflicts(sessions):
    with pytest.raises(VersionConflict):
        sessions.save(make_session(), expected_version=3)
    assert sessions.get("acme", "support", "s1") is None


def test_concurrent_creates_exactly_one_wins(db):
    store = SqliteSessionStore(db)
    outcomes: list[str] = []
    barrier = threading.Barrier(8)

    def create(i: int) -> None:
        barrier.wait()
        try:
            store.save(make_session(customer_id=f"c{i}"), 0)
            outcomes.append("ok")
        except VersionConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=create, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["conflict"] * 7 + ["ok"]


def test_expired_session_is_absent_and_can_be_recreated(sessions):
    sessions.save(make_session(expires_at=int(time.time()) - 10, customer_id="old"), 0)
    assert sessions.get("acme", "support", "s1") is None

    fresh = sessions.save(make_session(expires_at=int(time.time()) + 3600, customer_id="new"), 0)
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
    # Neither turn id order nor insertion order matches the expected order.
    turns.put(make_record("a", 3, created_at=1.0))
    turns.put(make_record("b1", 2, created_at=20.0))
    turns.put(make_record("z", 1, created_at=50.0))
    turns.put(make_record("b2", 2, created_at=10.0))
    turns.put(make_record("other", 1, session_id="s2"))
    assert [r.turn_id for r in turns.list_for_session("acme", "support", "s1")] == ["z", "b2", "b1", "a"]
    assert [r.turn_id for r in turns.list_for_session("acme", "support", "s2")] == ["other"]


# --- tenant isolation -------------------------------------------------------------------------


def test_tenants_with_same_ids_stay_separate(sessions, profiles, turns):
    sessions.save(make_session(tenant="tenant-a", customer_id="alice"), 0)
    assert sessions.get("tenant-b", "support", "s1") is None

    # B can create its own session with the same ids: A's row does not conflict with it.
    sessions.save(make_session(tenant="tenant-b", customer_id="bob"), 0)
    a = sessions.get("tenant-a", "support", "s1")
    b = sessions.get("tenant-b", "support", "s1")
    assert a is not None and a.customer_id == "alice"
    assert b is not None and b.customer_id == "bob"

    # Updating B does not touch A.
    sessions.save(b.model_copy(update={"turn_count": 7}), 1)
    a = sessions.get("tenant-a", "support", "s1")
    assert a is not None and a.turn_count == 0 and a.version == 1

    profiles.save(CustomerProfile(tenant_id="tenant-a", agent_id="support", customer_id="c1", fields={"x": 1}))
    assert profiles.get("tenant-b", "support", "c1") is None

    turns.put(make_record("t1", 1, tenant="tenant-a", response="for a"))
    assert turns.list_for_session("tenant-b", "support", "s1") == []
    turns.put(make_record("t1", 1, tenant="tenant-b", response="for b"))  # same turn id: no DuplicateTurn
    assert [r.result.response for r in turns.list_for_session("tenant-a", "support", "s1")] == ["for a"]
    assert [r.result.response for r in turns.list_for_session("tenant-b", "support", "s1")] == ["for b"]


# --- files ------------------------------------------------------------------------------------


def test_file_persists_across_instances(tmp_path):
    path = tmp_path / "nested" / "dir" / "focal.db"
    first = open_sqlite_stores(path)
    first.sessions.save(make_session(slots={"k": "v"}), 0)
    first.profiles.save(CustomerProfile(tenant_id="acme", agent_id="support", customer_id="c1", fields={"a": 1}))
    first.turns.put(make_record("t1", 1))
    with first.db.connection() as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
    first.db.close()

    assert path.exists()
    db = SqliteDatabase(path)
    try:
        loaded = SqliteSessionStore(db).get("acme", "support", "s1")
        assert loaded is not None and loaded.slots == {"k": "v"} and loaded.version == 1
        profile = SqliteProfileStore(db).get("acme", "support", "c1")
        assert profile is not None and profile.fields == {"a": 1}
        assert [r.turn_id for r in SqliteTurnStore(db).list_for_session("acme", "support", "s1")] == ["t1"]
        with pytest.raises(DuplicateTurn):
            SqliteTurnStore(db).put(make_record("t1", 1))
    finally:
        db.close()
