"""`focal profile set|show` plays the business's own systems on a laptop: the facts it writes are the
ones a guarded flow reads (never a message), each brought to its field's type, and a mistake names
the field."""

from __future__ import annotations

from pathlib import Path

from focal.adapters.sqlite_store import open_sqlite_stores
from focal.main import main

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
    assert "did you mean 'is_verified'" in capsys.readouterr().out
    assert main(["profile", "set", CARDS, "--customer", "c-9", "--db", db, "is_verified"]) == 2
    assert open_sqlite_stores(db).profiles.get("local", "cards", "c-9") is None


HOTEL = """\
id: harbor
name: Harbor Hotels
profile_field_definitions:
  - {field_name: loyalty_tier, field_type: enum, allowed_values: [none, silver, gold], value_synonyms: {gold: [gold member]},
     sources: [profile], privileged: true, default: none}
  - {field_name: amenities, field_type: entity_list, allowed_values: [spa, gym, pool], sources: [profile]}
  - {field_name: is_verified, field_type: boolean, sources: [profile], privileged: true, default: false}
"""


def _hotel(tmp_path: Path) -> tuple[str, str]:
    path = tmp_path / "agent.yaml"
    path.write_text(HOTEL, encoding="utf-8")
    return str(path), str(tmp_path / "focal.db")


def test_an_enum_value_outside_allowed_values_is_refused_naming_the_field_and_the_values(tmp_path, capsys):
    agent, db = _hotel(tmp_path)
    assert main(["profile", "set", agent, "--customer", "g-1", "--db", db, "loyalty_tier=platinum"]) == 2
    assert capsys.readouterr().out.strip() == (
        "focal profile: loyalty_tier: 'platinum' is not one of the allowed values of this enum field (none, silver, "
        "gold), so nothing is stored; give one of them (in any case) or one of its value_synonyms")
    assert main(["profile", "set", agent, "--customer", "g-1", "--db", db, "loyalty_tier=golld"]) == 2
    assert capsys.readouterr().out.strip().endswith("did you mean 'gold'?")
    assert open_sqlite_stores(db).profiles.get("local", "harbor", "g-1") is None


def test_a_case_variant_or_a_synonym_stores_the_allowed_value_itself(tmp_path):
    agent, db = _hotel(tmp_path)
    assert main(["profile", "set", agent, "--customer", "g-1", "--db", db, "loyalty_tier=Gold"]) == 0
    stored = open_sqlite_stores(db).profiles.get("local", "harbor", "g-1")
    assert stored is not None and stored.fields == {"loyalty_tier": "gold"}
    assert main(["profile", "set", agent, "--customer", "g-2", "--db", db, "loyalty_tier=Gold  Member"]) == 0
    stored = open_sqlite_stores(db).profiles.get("local", "harbor", "g-2")
    assert stored is not None and stored.fields == {"loyalty_tier": "gold"}


def test_an_entity_list_takes_allowed_values_separated_by_commas(tmp_path, capsys):
    agent, db = _hotel(tmp_path)
    assert main(["profile", "set", agent, "--customer", "g-1", "--db", db, "amenities=Spa, pool"]) == 0
    stored = open_sqlite_stores(db).profiles.get("local", "harbor", "g-1")
    assert stored is not None and stored.fields == {"amenities": ["spa", "pool"]}
    assert main(["profile", "set", agent, "--customer", "g-1", "--db", db, "amenities=spa,sauna"]) == 2
    assert "'sauna' is not one of the allowed values of this entity_list field (spa, gym, pool)" in capsys.readouterr().out


def test_a_boolean_must_be_written_as_one(tmp_path, capsys):
    agent, db = _hotel(tmp_path)
    assert main(["profile", "set", agent, "--customer", "g-1", "--db", db, "is_verified=maybe"]) == 2
    assert "is_verified: 'maybe' is no boolean value; give true or false" in capsys.readouterr().out
    assert main(["profile", "set", agent, "--customer", "g-1", "--db", db, "is_verified=on"]) == 0
    stored = open_sqlite_stores(db).profiles.get("local", "harbor", "g-1")
    assert stored is not None and stored.fields == {"is_verified": True}
