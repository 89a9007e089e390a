"""Turn claims (`focal.ports.TurnClaimStore`) on the local SQLite file, beside the stores.

`acquire` reads and writes under one `BEGIN IMMEDIATE` (SQLite's write lock, held across processes),
so of two executions racing for a key exactly one writes its claim. `extend` and `complete` are one
UPDATE each, conditional on the owner token. Inside a turn's persist transaction they commit with
the turn's own writes (the same connection), so a turn is recorded and completed together or not at all.

The table (`turn_claims`) is part of the database's schema (`sqlite_store`); rows past `expires_at` are
replaced by the next claim of their key and deleted by `SqliteDatabase.prune_expired`.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from focal.adapters.sqlite_store import SqliteDatabase
from focal.ports import TurnClaim

_COLUMNS = "tenant_id, key, owner, status, payload_hash, lease_until, expires_at, result"


def _claim(row: Any) -> TurnClaim | None:
    if row is None:
        return None
    tenant_id, key, owner, status, payload_hash, lease_until, expires_at, result = row
    return TurnClaim(tenant_id=tenant_id, key=key, owner=owner, status=status, payload_hash=payload_hash,
                     lease_until=lease_until, expires_at=expires_at, result=result)


class SqliteTurnClaims:
    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db

    def _read(self, conn: sqlite3.Connection, tenant_id: str, key: str) -> TurnClaim | None:
        return _claim(conn.execute(f"SELECT {_COLUMNS} FROM turn_claims WHERE tenant_id=? AND key=?",
                                   (tenant_id, key)).fetchone())

    def get(self, tenant_id: str, key: str) -> TurnClaim | None:
        with self._db.connection() as conn:
            return self._read(conn, tenant_id, key)

    def acquire(self, claim: TurnClaim, now: float) -> tuple[bool, TurnClaim | None]:
        with self._db.transaction(), self._db.connection() as conn:
            found = self._read(conn, claim.tenant_id, claim.key)
            if found is not None and not found.yields_to(claim, now):
                return False, found
            conn.execute(
                f"INSERT OR REPLACE INTO turn_claims ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
                (claim.tenant_id, claim.key, claim.owner, "in_progress", claim.payload_hash, claim.lease_until,
                 claim.expires_at),
            )
            return True, found

    def extend(self, tenant_id: str, key: str, owner: str, lease_until: float) -> bool:
        with self._db.connection() as conn:
            cursor = conn.execute(
                "UPDATE turn_claims SET lease_until=? WHERE tenant_id=? AND key=? AND owner=? AND status='in_progress'",
                (lease_until, tenant_id, key, owner),
            )
        return cursor.rowcount == 1

    def complete(self, tenant_id: str, key: str, owner: str, result: str, expires_at: float) -> bool:
        with self._db.connection() as conn:
            cursor = conn.execute(
                "UPDATE turn_claims SET status='completed', result=?, expires_at=? "
                "WHERE tenant_id=? AND key=? AND owner=? AND status='in_progress'",
                (result, expires_at, tenant_id, key, owner),
            )
        return cursor.rowcount == 1
