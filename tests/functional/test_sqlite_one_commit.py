"""Issue 18: a turn's writes on the local SQLite file commit together, each keeping its own condition."""

from __future__ import annotations

import sqlite3

import pytest

from focal.adapters.sqlite_store import open_sqlite_stores
from focal.errors import VersionConflict
from focal.models.session import CustomerProfile, Session


def _count(path, table: str) -> int:
    with sqlite3.connect(path) as other:  # another connection sees only what was committed
        return other.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_writes_inside_a_transaction_are_committed_together_and_a_conflict_keeps_the_rest(tmp_path):
    path = tmp_path / "f.db"
    stores = open_sqlite_stores(path)
    session = Session(tenant_id="t", agent_id="a", session_id="s", customer_id="c")
    with stores.sessions.transaction():
        stores.sessions.save(session, expected_version=0)
        stores.profiles.save(CustomerProfile(tenant_id="t", agent_id="a", customer_id="c", fields={"x": 1}))
        with pytest.raises(VersionConflict):
            stores.sessions.save(session, expected_version=7)  # a conditional write that does not apply
        assert _count(path, "sessions") == 0 and _count(path, "profiles") == 0  # not committed yet
    assert _count(path, "sessions") == 1 and _count(path, "profiles") == 1
    assert stores.sessions.get("t", "a", "s").version == 1


def test_an_error_leaving_the_transaction_commits_what_was_written(tmp_path):
    path = tmp_path / "f.db"
    stores = open_sqlite_stores(path)
    with pytest.raises(RuntimeError), stores.sessions.transaction():
        stores.sessions.save(Session(tenant_id="t", agent_id="a", session_id="s", customer_id="c"), expected_version=0)
        raise RuntimeError("later step failed")
    assert _count(path, "sessions") == 1  # as in autocommit: the write that applied stays


def test_the_local_file_is_wal_with_normal_sync(tmp_path):
    stores = open_sqlite_stores(tmp_path / "f.db")
    with stores.db.connection() as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
