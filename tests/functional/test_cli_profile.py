"""`focal profile set|show` plays the business's own systems on a laptop: the facts it writes are the
ones a guarded flow reads (never a message), each brought to its field's type, and a mistake names
the field."""

from __future__ import annotations

from pathlib import Path

from focal.adapters.sqlite_store import open_sqlite_stores
from focal.cli.main import main

CARDS = str(Path(__file__).resolve().parents[2] / "examples" / "cards" / "agent.yaml")


def test_set_writes_typed_facts_the_profile_store_returns(tmp_path, capsys):
    db = str(tmp_path / "focal.db")
    assert main(["profile", "set", CARDS, "--customer", "c-9", "--db", db, "is_verified=true"]) == 0
    stored = open_sqlite_stores(db).profiles.get("local", "cards", "c-9")
    assert stored is not None and stored.fields == {"is_verified": True}
    assert main(["profile", "show", CARDS, "--customer", "c-9", "--db", db]) == 0
    assert '"is_verified": true' in capsys.readouterr().out


def test_an_undeclared_field_or_a_malformed_pair_is_refused_naming_it(tmp_path, capsys):
    db = str(tmp_path / "focal.db")
    assert main(["profile", "set", CARDS, "--customer", "c-9", "--db", db, "is_verifed=true"]) == 2
    assert "is_verifed" in capsys.readouterr().out
    assert main(["profile", "set", CARDS, "--customer", "c-9", "--db", db, "is_verified"]) == 2
    assert open_sqlite_stores(db).profiles.get("local", "cards", "c-9") is None
