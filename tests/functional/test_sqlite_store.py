"""SQLite-specific store behaviour: a real thread race on create, WAL mode and file persistence.

The behaviour every store shares (round trips, optimistic locking, turn idempotency, ordering,
expiry, tenant isolation) is tested against SQLite and DynamoDB alike in
tests/functional/test_store_contract.py.
"""

from __future__ import annotations

import threading

import pytest

from focal.adapters.sqlite_store import (
    SqliteDatabase,
    SqliteProfileStore,
    SqliteSessionStore,
    SqliteTurnStore,
    open_sqlite_stores,
)
from focal.errors import DuplicateTurn, VersionConflict
from focal.models.session import CustomerProfile
from store_fixtures import make_record, make_session


@pytest.fixture
def db():
    database = SqliteDatabase(":memory:")
    yield database
    database.close()


# --- sessions ---------------------------------------------------------------------------------


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
