"""`focal keys create|list|revoke` on the local SQLite file: the key is printed once, stored hashed,
never listed, and a revoked key no longer authenticates."""

from __future__ import annotations

import json
import sqlite3

import pytest

from focal.adapters.api_keys import key_hash
from focal.adapters.sqlite_api_keys import SqliteApiKeyStore
from focal.main import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["keys", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_keys_round_trip_on_sqlite(tmp_path, capsys):
    db = str(tmp_path / "focal.db")
    code, out, err = run(capsys, "create", "--tenant", "acme", "--scope", "chat", "--scope", "approve",
                         "--label", "web", "--db", db)
    assert code == 0
    (key,) = [line.split()[1] for line in out.splitlines() if line.startswith("key ")]
    assert key.startswith("fk_") and len(key) > 30
    store = SqliteApiKeyStore(db)
    principal = store.principal_for(key)
    assert principal and principal.tenant_id == "acme" and principal.scopes == {"chat", "approve"}
    assert not principal.may_assert_customer and principal.customer_id == "anonymous"

    # stored hashed only: the key is nowhere in the file
    rows = sqlite3.connect(db).execute("SELECT * FROM api_keys").fetchall()
    assert rows and rows[0][0] == key_hash(key) and key not in json.dumps(rows)
    assert key.encode() not in (tmp_path / "focal.db").read_bytes()

    code, listing, _ = run(capsys, "list", "--db", db)
    assert code == 0 and key not in listing and key_hash(key) not in listing
    key_id = key_hash(key)[:12]
    assert key_id in listing and "acme" in listing and "approve,chat" in listing and "web" in listing
    code, as_json, _ = run(capsys, "list", "--db", db, "--json")
    assert key not in as_json and json.loads(as_json)[0]["disabled"] is False

    code, out, _ = run(capsys, "revoke", key_id[:8], "--db", db)
    assert code == 0 and key_id in out
    assert store.principal_for(key) is None
    assert json.loads(run(capsys, "list", "--db", db, "--json")[1])[0]["disabled"] is True


def test_trusted_backend_and_bad_input(tmp_path, capsys):
    db = str(tmp_path / "focal.db")
    code, out, _ = run(capsys, "create", "--tenant", "acme", "--scope", "chat", "--trusted-backend", "--db", db, "--json")
    key = json.loads(out)["key"]
    assert SqliteApiKeyStore(db).principal_for(key).may_assert_customer
    with pytest.raises(SystemExit):
        run(capsys, "create", "--tenant", "acme", "--scope", "everything", "--db", db)
    assert run(capsys, "revoke", "0000000000", "--db", db)[0] == 1  # no such key
    assert run(capsys, "revoke", "x'; --", "--db", db)[0] == 1
    assert SqliteApiKeyStore(db).principal_for(key) is not None  # still active
    assert SqliteApiKeyStore(db).principal_for("fk_unknown") is None
