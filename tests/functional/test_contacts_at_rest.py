"""Contacts and odd card separators at rest, through whole turns on the local defaults and on DynamoDB (moto).

- A card typed with no-break spaces, en dashes, underscores or zero-width spaces is stored with its last
  four digits only, in the session and the turn record alike (red team 6, finding 6).
- A card pasted one group per line, or with a bracket around its first group, and an e-mail address with a
  full-width at sign are stored masked too (red team 7, finding 5).
- An e-mail address, a phone number and an SSN typed in a message are stored as `[email]`, `[phone]`,
  `[ssn]` in sessions, turn records and episodes (finding 9), while a bare reference number stays.
- The contact agent (tests/functional/contact_agent) collects a new e-mail address as a slot and changes it
  with a side-effecting tool one turn later, after the customer confirms: the stored session keeps that
  slot usable, and the approval gate still sees the address in the customer's words and in the question.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps
from store_fixtures import TABLES, make_record, mocked_dynamodb

ROOT = Path(__file__).resolve().parents[2]
RETAIL = ROOT / "examples" / "retail" / "agent.yaml"
CONTACTS = Path(__file__).resolve().parent / "contact_agent" / "agent.yaml"
CARD = ["5555", "5555", "5555", "4444"]  # Luhn-valid
NEW_EMAIL = "Jane.Roe+acct@mail.example.org"


def _turn(runner: LocalRunner, agent: str, session: str, n: int, message: str) -> TurnResult:
    return runner.turn(TurnRequest(tenant_id="local", agent_id=agent, session_id=session, customer_id="c-100",
                                   turn_id=f"{session}-{n}", message=message))


def _stored(db: Path) -> dict[str, list[dict[str, Any]]]:
    with sqlite3.connect(db) as conn:
        return {t: [json.loads(d) for (d,) in conn.execute(f"SELECT doc FROM {t}")] for t in ("sessions", "turns", "episodes")}


@pytest.mark.parametrize("separator", ["\u00a0", "\u2013", "_", "\u200b", "\u202f"], ids=["nbsp", "en-dash",
                                                                                          "underscore", "zwsp", "nnbsp"])
def test_a_card_with_an_odd_separator_is_stored_masked_in_sessions_and_turns(tmp_path: Path, separator: str) -> None:
    db = tmp_path / "focal.db"
    runner = LocalRunner(local_deps(RETAIL, db))
    _turn(runner, "retail", "s", 1, f"My card {separator.join(CARD)} was charged twice")
    stored = _stored(db)
    text = json.dumps(stored, ensure_ascii=False)
    assert separator.join(CARD) not in text and "".join(CARD) not in text
    assert stored["sessions"][0]["history"][0]["text"] == "My card **** **** **** 4444 was charged twice"
    assert stored["turns"][0]["state"]["request"]["message"] == "My card **** **** **** 4444 was charged twice"


@pytest.mark.parametrize(("typed", "masked"), [
    ("4111\n1111\n1111\n1111", "**** **** **** 1111"),
    ("(4111) 1111-1111-1111", "**** **** **** 1111"),
    ("\u0664\u0661\u0661\u0661 \u0661\u0661\u0661\u0661 \u0661\u0661\u0661\u0661 \u0661\u0661\u0661\u0661", "**** **** **** 1111"),
    ("jane.roe\uff20example.com", "[email]"),
], ids=["lines", "bracket", "arabic-indic", "full-width-at"])
def test_a_value_pasted_across_lines_or_in_look_alike_characters_is_stored_masked(
        tmp_path: Path, typed: str, masked: str) -> None:
    db = tmp_path / "focal.db"
    runner = LocalRunner(local_deps(RETAIL, db))
    _turn(runner, "retail", "s", 1, f"My details: {typed}, please look at booking 4155550123")
    stored = _stored(db)
    assert typed not in json.dumps(stored, ensure_ascii=False)
    expected = f"My details: {masked}, please look at booking 4155550123"
    assert stored["sessions"][0]["history"][0]["text"] == expected
    assert stored["turns"][0]["state"]["request"]["message"] == expected
    assert stored["episodes"] and all(e["asked"].startswith(expected[:60]) for e in stored["episodes"])


def test_contacts_typed_in_a_message_are_masked_everywhere_but_a_reference_stays(tmp_path: Path) -> None:
    db = tmp_path / "focal.db"
    runner = LocalRunner(local_deps(RETAIL, db))
    message = "Update my email to john.doe@example.com, phone +1 415 555 0199, SSN 078-05-1120, booking 4155550123"
    live = _turn(runner, "retail", "s", 1, message)
    assert live.success
    stored = _stored(db)
    masked = "Update my email to [email], phone [phone], SSN [ssn], booking 4155550123"
    assert stored["sessions"][0]["history"][0]["text"] == masked
    assert stored["turns"][0]["state"]["request"]["message"] == masked
    assert stored["episodes"][0]["asked"].startswith(masked[:60])
    text = json.dumps(stored)
    for raw in ("john.doe@example.com", "555 0199", "078-05-1120"):
        assert raw not in text


def test_an_email_slot_stays_usable_on_the_turn_after_the_confirmation(tmp_path: Path) -> None:
    db = tmp_path / "focal.db"
    runner = LocalRunner(local_deps(CONTACTS, db))
    _turn(runner, "contacts", "s", 1, "I want to change my email address. If it fails call me on (415) 555-0199")
    asked = _turn(runner, "contacts", "s", 2, f"it is {NEW_EMAIL} thanks, my old one was old.me@example.com")
    assert asked.response == f"Change your e-mail address to {NEW_EMAIL}?"

    done = _turn(runner, "contacts", "s", 3, "yes")  # the slot read back from the stored session
    assert [(t["tool_id"], t["status"], t["arguments"]) for t in done.tool_calls] == [
        ("change_email", "ok", {"email": NEW_EMAIL})]
    assert done.response == f"Done: updated, a confirmation went to {NEW_EMAIL}."
    assert done.execution_path == "respond"  # not held for approval: the address is in the customer's words

    stored = _stored(db)
    [session] = stored["sessions"]
    assert session["slots"] == {"email": NEW_EMAIL}
    assert [h["text"] for h in session["history"] if h["role"] == "user"] == [
        "I want to change my email address. If it fails call me on [phone]",
        f"it is {NEW_EMAIL} thanks, my old one was [email]", "yes"]
    # An episode stands apart from the session's values: there the address is masked too.
    assert [e["asked"] for e in stored["episodes"]][1] == "it is [email] thanks, my old one was [email]"
    assert "old.me@example.com" not in json.dumps(stored) and "555-0199" not in json.dumps(stored)


def test_dynamodb_stores_mask_the_same_way(monkeypatch: pytest.MonkeyPatch) -> None:
    from focal.adapters.dynamodb_store import DynamoTurnStore

    with mocked_dynamodb(monkeypatch) as client:
        turns = DynamoTurnStore(TABLES["turns"], client=client)
        typed = "\u2013".join(CARD)
        turns.put(make_record("t1", 1, response=f"card {typed}, mail a.b@example.com, call 415.555.0199"))
        items = client.scan(TableName=TABLES["turns"])["Items"]
    [doc] = [json.loads(i["doc"]["S"]) for i in items]
    assert doc["result"]["response"] == "card **** **** **** 4444, mail [email], call [phone]"
