"""API keys on SQLite, for local use (`focal keys`, `focal serve`): the twin of `DynamoApiKeyStore`.

The table `api_keys` lives in the same SQLite file as the other local stores (`SqliteDatabase`).
Only the key's SHA-256 is stored; the key is returned once by `create`. Implements
`focal.auth.KeyLookup`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from focal.adapters.api_keys import check_key_id, key_hash, key_id, new_key
from focal.adapters.sqlite_store import SqliteDatabase
from focal.auth import KeyRecord, KeyRequest, Principal

_SCHEMA = """
CREATE TABLE IF NOT EXISTS api_keys (
    key_hash        TEXT PRIMARY KEY,
    tenant_id       TEXT NOT NULL,
    scopes          TEXT NOT NULL,
    label           TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    disabled        INTEGER NOT NULL DEFAULT 0,
    trusted_backend INTEGER NOT NULL DEFAULT 0
);
"""
_COLUMNS = "key_hash, tenant_id, scopes, label, created_at, disabled, trusted_backend"


def _record(row: tuple[Any, ...]) -> KeyRecord:
    hashed, tenant, scopes, label, created_at, disabled, trusted = row
    return KeyRecord(key_id=key_id(hashed), tenant_id=tenant, scopes=frozenset(scopes.split()), label=label,
                     created_at=int(created_at), disabled=bool(disabled), trusted_backend=bool(trusted))


class SqliteApiKeyStore:
    def __init__(self, db: SqliteDatabase | str | Path) -> None:
        self._db = db if isinstance(db, SqliteDatabase) else SqliteDatabase(db)
        with self._db.connection() as conn:
            conn.executescript(_SCHEMA)

    def record_for(self, api_key: str) -> KeyRecord | None:
        with self._db.connection() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM api_keys WHERE key_hash=?", (key_hash(api_key),)).fetchone()
        return _record(row) if row else None

    def principal_for(self, api_key: str) -> Principal | None:
        record = self.record_for(api_key) if api_key else None
        return record.principal() if record else None

    def create(self, tenant_id: str, scopes: Any, label: str = "", trusted_backend: bool = False) -> tuple[str, KeyRecord]:
        wanted = KeyRequest.checked(tenant_id, scopes, label, trusted_backend)
        api_key = new_key()
        row = (key_hash(api_key), wanted.tenant_id, " ".join(sorted(wanted.scopes)), wanted.label, int(time.time()), 0,
               int(wanted.trusted_backend))
        with self._db.connection() as conn:
            conn.execute(f"INSERT INTO api_keys ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", row)
        return api_key, _record(row)

    def list(self, tenant_id: str | None = None) -> list[KeyRecord]:
        query = f"SELECT {_COLUMNS} FROM api_keys" + (" WHERE tenant_id=?" if tenant_id is not None else "")
        with self._db.connection() as conn:
            rows = conn.execute(query + " ORDER BY created_at, key_hash", (tenant_id,) if tenant_id is not None else ()).fetchall()
        return [_record(r) for r in rows]

    def revoke(self, key_id_prefix: str) -> KeyRecord:
        """Disable the key whose id starts with `key_id_prefix` (KeyError: none or several)."""
        prefix = check_key_id(key_id_prefix)
        with self._db.connection() as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM api_keys WHERE substr(key_hash, 1, ?) = ?",
                                (len(prefix), prefix)).fetchall()
            if len(rows) != 1:
                raise KeyError("no key with that id" if not rows else "that id matches several keys: give more of it")
            conn.execute("UPDATE api_keys SET disabled=1 WHERE key_hash=?", (rows[0][0],))
        return _record((*rows[0][:5], 1, rows[0][6]))
