"""The embedded default stores on SQLite: sessions, customer profiles and turn records.

Documents are stored as JSON text next to their key columns; every primary key starts with
(tenant_id, agent_id) so one tenant can never address another tenant's rows.

Sessions, turn records and episodes are masked as they are written (`focal.pii`: card-like numbers
always, the agent's `pii: true` fields when the stores are given an agent lookup); the objects the
engine holds keep their clear values. Rows past their `expires_at` are invisible to reads and deleted
by `SqliteDatabase.prune_expired`, which writes run at most once per `PRUNE_EVERY_S`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from focal.errors import DuplicateTurn, VersionConflict
from focal.models.approval import ApprovalRequest, ApprovalState
from focal.models.memory import Episode
from focal.models.session import CustomerProfile, Session
from focal.models.turn import TurnRecord
from focal.pii import AgentLookup, masked_json

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    tenant_id  TEXT NOT NULL,
    agent_id   TEXT NOT NULL,
    session_id TEXT NOT NULL,
    version    INTEGER NOT NULL,
    expires_at INTEGER,
    doc        TEXT NOT NULL,
    PRIMARY KEY (tenant_id, agent_id, session_id)
);
CREATE TABLE IF NOT EXISTS profiles (
    tenant_id   TEXT NOT NULL,
    agent_id    TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    doc         TEXT NOT NULL,
    PRIMARY KEY (tenant_id, agent_id, customer_id)
);
CREATE TABLE IF NOT EXISTS turns (
    tenant_id   TEXT NOT NULL,
    agent_id    TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    turn_id     TEXT NOT NULL,
    turn_number INTEGER NOT NULL,
    created_at  REAL NOT NULL,
    expires_at  INTEGER,
    doc         TEXT NOT NULL,
    PRIMARY KEY (tenant_id, agent_id, session_id, turn_id)
);
CREATE TABLE IF NOT EXISTS episodes (
    tenant_id   TEXT NOT NULL,
    agent_id    TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    created_at  REAL NOT NULL,
    turn_id     TEXT NOT NULL,
    expires_at  INTEGER,
    doc         TEXT NOT NULL,
    PRIMARY KEY (tenant_id, agent_id, customer_id, created_at, turn_id)
);
CREATE TABLE IF NOT EXISTS approvals (
    tenant_id   TEXT NOT NULL,
    approval_id TEXT NOT NULL,
    state       TEXT NOT NULL,
    expires_at  REAL NOT NULL,
    doc         TEXT NOT NULL,
    PRIMARY KEY (tenant_id, approval_id)
);
CREATE TABLE IF NOT EXISTS turn_claims (
    tenant_id    TEXT NOT NULL,
    key          TEXT NOT NULL,
    owner        TEXT NOT NULL,
    status       TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    lease_until  REAL NOT NULL,
    expires_at   REAL NOT NULL,
    result       TEXT,
    PRIMARY KEY (tenant_id, key)
);
CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at);
CREATE INDEX IF NOT EXISTS turns_expiry ON turns (expires_at);
CREATE INDEX IF NOT EXISTS episodes_expiry ON episodes (expires_at);
CREATE INDEX IF NOT EXISTS turn_claims_expiry ON turn_claims (expires_at);
"""
PRUNED_TABLES = ("sessions", "turns", "episodes", "turn_claims")  # each with an `expires_at` (epoch seconds) column
PRUNE_EVERY_S = 60.0


class SqliteDatabase:
    """One SQLite connection shared by the stores, serialised by a lock."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: autocommit; multi-statement work uses explicit transactions.
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.RLock()
        self._pruned_at = float("-inf")
        with self._lock:
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode=WAL")
                # WAL + NORMAL: a commit is not fsynced (the WAL is, at each checkpoint). A crash of the
                # process loses nothing; a power loss or OS crash may lose the last turns committed
                # before it, never corrupts the file. FULL would fsync every commit (milliseconds per turn).
                self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA busy_timeout=5000")
            self._conn.executescript(_SCHEMA)

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._conn

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Every write made inside, by any store on this database, committed together (one commit, not
        one per statement); nested, it joins the outer one. Each statement keeps its own outcome as in
        autocommit: a conditional write that did not apply (a version conflict, a duplicate turn)
        changes nothing and the writes that did apply are committed, even when an error leaves."""
        with self._lock:
            began = not self._conn.in_transaction
            if began:
                self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            finally:
                if began and self._conn.in_transaction:
                    try:
                        self._conn.execute("COMMIT")
                    except sqlite3.Error:
                        if self._conn.in_transaction:
                            self._conn.execute("ROLLBACK")
                        raise

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def prune_expired(self, now: float | None = None) -> int:
        """Delete the sessions, turn records and episodes whose `expires_at` has passed; the number deleted."""
        now = time.time() if now is None else now
        with self._lock:
            self._pruned_at = time.monotonic()
            return sum(self._conn.execute(f"DELETE FROM {table} WHERE expires_at IS NOT NULL AND expires_at < ?",
                                          (now,)).rowcount for table in PRUNED_TABLES)

    def maybe_prune(self) -> None:
        if time.monotonic() - self._pruned_at >= PRUNE_EVERY_S:
            self.prune_expired()


def _expired(expires_at: int | None, now: float | None = None) -> bool:
    return expires_at is not None and expires_at < (time.time() if now is None else now)


class SqliteSessionStore:
    def __init__(self, db: SqliteDatabase, agents: AgentLookup | None = None) -> None:
        self._db = db
        self._agents = agents  # pii: the agent whose `pii: true` fields are masked; None: card numbers only

    def transaction(self) -> AbstractContextManager[None]:
        """One commit for a turn's writes (the stores and the idempotency record share the database)."""
        return self._db.transaction()

    def get(self, tenant_id: str, agent_id: str, session_id: str) -> Session | None:
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT doc, version, expires_at FROM sessions WHERE tenant_id=? AND agent_id=? AND session_id=?",
                (tenant_id, agent_id, session_id),
            ).fetchone()
        if row is None or _expired(row[2]):
            return None
        session = Session.model_validate_json(row[0])
        session.version = row[1]
        return session

    def save(self, session: Session, expected_version: int) -> Session:
        stored = session.model_copy(deep=True, update={"version": expected_version + 1})
        params: dict[str, Any] = {
            "tenant_id": stored.tenant_id,
            "agent_id": stored.agent_id,
            "session_id": stored.session_id,
            "version": stored.version,
            "expected": expected_version,
            "expires_at": stored.expires_at,
            "doc": masked_json(stored.model_dump(mode="json"), self._agents),
        }
        with self._db.connection() as conn:
            if expected_version == 0:
                # Insert, or take over a row that has expired (get() reports it as absent).
                params["now"] = time.time()
                cursor = conn.execute(
                    "INSERT INTO sessions (tenant_id, agent_id, session_id, version, expires_at, doc) "
                    "VALUES (:tenant_id, :agent_id, :session_id, :version, :expires_at, :doc) "
                    "ON CONFLICT (tenant_id, agent_id, session_id) DO UPDATE SET "
                    "version=excluded.version, expires_at=excluded.expires_at, doc=excluded.doc "
                    "WHERE sessions.expires_at IS NOT NULL AND sessions.expires_at < :now",
                    params,
                )
                if cursor.rowcount != 1:
                    raise VersionConflict(f"session {stored.session_id} already exists")
            else:
                cursor = conn.execute(
                    "UPDATE sessions SET version=:version, expires_at=:expires_at, doc=:doc "
                    "WHERE tenant_id=:tenant_id AND agent_id=:agent_id AND session_id=:session_id "
                    "AND version=:expected",
                    params,
                )
                if cursor.rowcount != 1:
                    raise VersionConflict(
                        f"session {stored.session_id} is not at version {expected_version}"
                    )
        return stored


class SqliteProfileStore:
    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db

    def get(self, tenant_id: str, agent_id: str, customer_id: str) -> CustomerProfile | None:
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT doc FROM profiles WHERE tenant_id=? AND agent_id=? AND customer_id=?",
                (tenant_id, agent_id, customer_id),
            ).fetchone()
        return CustomerProfile.model_validate_json(row[0]) if row else None

    def save(self, profile: CustomerProfile) -> None:
        with self._db.connection() as conn:
            conn.execute(
                "INSERT INTO profiles (tenant_id, agent_id, customer_id, doc) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (tenant_id, agent_id, customer_id) DO UPDATE SET doc=excluded.doc",
                (profile.tenant_id, profile.agent_id, profile.customer_id, profile.model_dump_json()),
            )


class SqliteTurnStore:
    def __init__(self, db: SqliteDatabase, agents: AgentLookup | None = None) -> None:
        self._db = db
        self._agents = agents

    def put(self, record: TurnRecord) -> None:
        doc = masked_json(record.model_dump(mode="json"), self._agents)
        self._db.maybe_prune()
        with self._db.connection() as conn:
            try:
                conn.execute(
                    "INSERT INTO turns (tenant_id, agent_id, session_id, turn_id, turn_number, created_at, "
                    "expires_at, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        record.tenant_id,
                        record.agent_id,
                        record.session_id,
                        record.turn_id,
                        record.turn_number,
                        record.created_at,
                        record.expires_at,
                        doc,
                    ),
                )
            except sqlite3.IntegrityError as exc:
                raise DuplicateTurn(f"turn {record.turn_id} is already recorded") from exc

    def remask(self, tenant_id: str, agent_id: str, session_id: str, turn_id: str) -> None:
        where = "tenant_id=? AND agent_id=? AND session_id=? AND turn_id=?"
        key = (tenant_id, agent_id, session_id, turn_id)
        with self._db.connection() as conn:
            for (doc,) in conn.execute(f"SELECT doc FROM turns WHERE {where}", key).fetchall():
                conn.execute(f"UPDATE turns SET doc=? WHERE {where}", (masked_json(json.loads(doc), self._agents), *key))

    def list_for_session(self, tenant_id: str, agent_id: str, session_id: str) -> list[TurnRecord]:
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT doc, expires_at FROM turns WHERE tenant_id=? AND agent_id=? AND session_id=? "
                "ORDER BY turn_number, created_at",
                (tenant_id, agent_id, session_id),
            ).fetchall()
        now = time.time()
        return [TurnRecord.model_validate_json(doc) for doc, expires_at in rows if not _expired(expires_at, now)]


class SqliteEpisodeStore:
    def __init__(self, db: SqliteDatabase, agents: AgentLookup | None = None) -> None:
        self._db = db
        self._agents = agents

    def put(self, episode: Episode) -> None:
        doc = masked_json(episode.model_dump(mode="json"), self._agents)
        self._db.maybe_prune()
        with self._db.connection() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO episodes (tenant_id, agent_id, customer_id, created_at, turn_id, expires_at, doc) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (episode.tenant_id, episode.agent_id, episode.customer_id, episode.created_at, episode.turn_id,
                 episode.expires_at, doc),
            )

    def remask(self, tenant_id: str, agent_id: str, customer_id: str, turn_id: str, near: float) -> None:
        where = "tenant_id=? AND agent_id=? AND customer_id=? AND turn_id=?"
        key = (tenant_id, agent_id, customer_id, turn_id)
        with self._db.connection() as conn:
            for (doc,) in conn.execute(f"SELECT doc FROM episodes WHERE {where}", key).fetchall():
                conn.execute(f"UPDATE episodes SET doc=? WHERE {where}", (masked_json(json.loads(doc), self._agents), *key))

    def recent(self, tenant_id: str, agent_id: str, customer_id: str, limit: int) -> list[Episode]:
        with self._db.connection() as conn:
            rows = conn.execute(
                "SELECT doc, expires_at FROM episodes WHERE tenant_id=? AND agent_id=? AND customer_id=? "
                "AND (expires_at IS NULL OR expires_at >= ?) ORDER BY created_at DESC LIMIT ?",
                (tenant_id, agent_id, customer_id, int(time.time()), limit),
            ).fetchall()
        return [Episode.model_validate_json(doc) for doc, _ in rows]


class SqliteApprovalStore:
    """Approval requests; a transition is one conditional UPDATE on (state, deadline)."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db

    def create(self, request: ApprovalRequest) -> None:
        with self._db.connection() as conn:
            try:
                conn.execute(
                    "INSERT INTO approvals (tenant_id, approval_id, state, expires_at, doc) VALUES (?, ?, ?, ?, ?)",
                    (request.tenant_id, request.approval_id, request.state, request.expires_at, request.model_dump_json()),
                )
            except sqlite3.IntegrityError as exc:
                raise ValueError(f"approval {request.approval_id} already exists") from exc

    @staticmethod
    def _read(conn: sqlite3.Connection, tenant_id: str, approval_id: str) -> ApprovalRequest | None:
        row = conn.execute(
            "SELECT doc FROM approvals WHERE tenant_id=? AND approval_id=?", (tenant_id, approval_id)
        ).fetchone()
        return ApprovalRequest.model_validate_json(row[0]) if row else None

    def get(self, tenant_id: str, approval_id: str, now: float) -> ApprovalRequest | None:
        with self._db.connection() as conn:
            request = self._read(conn, tenant_id, approval_id)
        if request is not None:
            request.state = request.effective_state(now)
        return request

    def transition(
        self, tenant_id: str, approval_id: str, from_state: ApprovalState, to_state: ApprovalState, now: float,
        outcome: dict[str, Any] | None = None,
    ) -> ApprovalRequest | None:
        with self._db.connection() as conn:
            request = self._read(conn, tenant_id, approval_id)
            if request is None:
                return None
            request.state, request.decided_at = to_state, now
            if outcome is not None:
                request.outcome = outcome
            in_time = " AND expires_at >= :now" if to_state in ("approved", "denied") else ""
            cursor = conn.execute(
                "UPDATE approvals SET state=:to, doc=:doc WHERE tenant_id=:t AND approval_id=:id AND state=:from" + in_time,
                {"to": to_state, "doc": request.model_dump_json(), "t": tenant_id, "id": approval_id,
                 "from": from_state, "now": now},
            )
        return request if cursor.rowcount == 1 else None

    def set_outcome(self, tenant_id: str, approval_id: str, outcome: dict[str, Any]) -> None:
        with self._db.connection() as conn:
            request = self._read(conn, tenant_id, approval_id)
            if request is None:
                return
            request.outcome = outcome
            conn.execute("UPDATE approvals SET doc=? WHERE tenant_id=? AND approval_id=?",
                         (request.model_dump_json(), tenant_id, approval_id))


@dataclass
class SqliteStores:
    db: SqliteDatabase
    sessions: SqliteSessionStore
    profiles: SqliteProfileStore
    turns: SqliteTurnStore
    episodes: SqliteEpisodeStore
    approvals: SqliteApprovalStore


def open_sqlite_stores(path: str | Path, agents: AgentLookup | None = None) -> SqliteStores:
    """`agents`: the agent definitions whose `pii: true` fields are masked (`focal.pii.agent_lookup(configs)`)."""
    db = SqliteDatabase(path)
    return SqliteStores(db, SqliteSessionStore(db, agents), SqliteProfileStore(db), SqliteTurnStore(db, agents),
                        SqliteEpisodeStore(db, agents), SqliteApprovalStore(db))
