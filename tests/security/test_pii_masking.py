"""The masking rules of `focal.pii` and the retention of the local SQLite stores.

Card-like numbers (13–19 digits in the separators customers type, Luhn-valid) keep only their last
four digits; a long number that fails Luhn (a tracking number) is left alone; a `pii: true` field's
value becomes `[redacted:<field>]` where it is held under the field's name and where it occurs in
text, and no other value is touched. Expired turn records, sessions and episodes are deleted from
the SQLite file, not only hidden from reads.
"""

from __future__ import annotations

import re
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from focal.config.loader import load_agent
from focal.pii import luhn_valid, mask_record, mask_text, mask_value

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "functional"))
from store_fixtures import make_record  # noqa: E402

AGENT = load_agent(HERE / "pii_agent" / "agent.yaml")

CARDS = [  # (as typed, its digits)
    ("4242 4242 4242 4242", "4242424242424242"),
    ("4242-4242-4242-4242", "4242424242424242"),
    ("4242.4242.4242.4242", "4242424242424242"),
    ("4242/4242/4242/4242", "4242424242424242"),
    ("4242  4242  4242  4242", "4242424242424242"),
    ("4242424242424242", "4242424242424242"),
    ("3782 822463 10005", "378282246310005"),  # Amex, 15 digits in 4-6-5
    ("4222222222222", "4222222222222"),  # 13 digits
    ("6222 2222 2222 2222 222", "6222222222222222222"),  # 19 digits
]


@pytest.mark.parametrize(("typed", "digits"), CARDS)
def test_a_card_number_keeps_only_its_last_four_digits(typed: str, digits: str) -> None:
    assert luhn_valid(digits)
    masked = mask_text(f"Please charge {typed}, thanks")
    assert masked == f"Please charge **** **** **** {digits[-4:]}, thanks"
    assert mask_text(masked) == masked  # idempotent: a stored value masked again is unchanged


def test_a_card_typed_next_to_other_numbers_is_found_and_the_others_are_kept() -> None:
    text = "order 1234567890123 4242 4242 4242 4242 on 2024-01-15 for $30.00, call 555 0199"
    assert mask_text(text) == "order 1234567890123 **** **** **** 4242 on 2024-01-15 for $30.00, call 555 0199"
    assert mask_text("two cards: 5555555555554444 and 4000056655665556") == (
        "two cards: **** **** **** 4444 and **** **** **** 5556")


@pytest.mark.parametrize("number", ["1234567890123", "1234 5678 9012 3", "12345678901234567", "A1001", "TX-1001"])
def test_long_numbers_that_fail_luhn_and_ids_are_not_mangled(number: str) -> None:
    assert not luhn_valid(re.sub(r"\D", "", number)) or len(re.sub(r"\D", "", number)) < 13
    assert mask_text(f"tracking {number} please") == f"tracking {number} please"


def test_a_masked_card_is_not_a_usable_value() -> None:
    masked = mask_text("4242 4242 4242 4242")
    retail_card_pattern = r"\b(?:\d(?:[ ./-]|  )?){12,18}\d\b"  # examples/retail/agent.yaml card_number_echoed
    assert not re.search(retail_card_pattern, masked)
    assert len(re.sub(r"\D", "", masked)) == 4
    assert mask_value("phone", "+1 (555) 867-5309") == "[redacted:phone]"
    assert mask_value("phone", None) is None  # an unfilled slot stays unfilled


def test_pii_field_values_are_redacted_where_held_and_in_text_and_nothing_else() -> None:
    phone = "+1 (555) 867-5309"
    doc = {
        "tenant_id": "acme", "agent_id": "billing", "session_id": "s1", "turn_id": "4242424242424242",
        "slots": {"phone": phone, "tracking_number": "1234567890123", "callback_time": "tomorrow"},
        "variables": {"phone": None},
        "flow_stack": [{"slots": {"phone": phone}}],
        "commands": [{"name": "SetSlot", "slot": "phone", "value": phone},
                     {"name": "SetSlot", "slot": "callback_time", "value": "tomorrow"}],
        "tool_calls": [{"arguments": {"phone": phone}, "outputs": {"callback_number": "15558675309", "phone": "555"}}],
        "history": [{"role": "user", "text": "call me on +1 555.867.5309 about parcel 1234567890123"}],
        "name": "phone",  # a key that happens to be a field's name outside a dict of values: kept
        "card": 4242424242424242,
    }
    masked = mask_record(doc, AGENT)
    assert masked["slots"] == {"phone": "[redacted:phone]", "tracking_number": "1234567890123", "callback_time": "tomorrow"}
    assert masked["variables"] == {"phone": None}
    assert masked["flow_stack"][0]["slots"]["phone"] == "[redacted:phone]"
    assert masked["commands"][0]["value"] == "[redacted:phone]" and masked["commands"][1]["value"] == "tomorrow"
    assert masked["tool_calls"][0] == {"arguments": {"phone": "[redacted:phone]"},
                                       "outputs": {"callback_number": "[redacted:phone]", "phone": "[redacted:phone]"}}
    assert masked["history"][0]["text"] == "call me on [redacted:phone] about parcel 1234567890123"
    assert masked["name"] == "phone" and masked["turn_id"] == "4242424242424242"  # store keys are never rewritten
    assert masked["card"] == "**** **** **** 4242"
    assert doc["slots"]["phone"] == phone  # a copy: the live document keeps its values
    # Without the agent (or for an agent with no pii field) only card numbers are masked.
    assert mask_record(doc, None)["slots"]["phone"] == phone


def _rows(db: Path, table: str) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_sqlite_deletes_expired_turn_records_sessions_and_episodes(tmp_path: Path) -> None:
    from focal.adapters.sqlite_store import PRUNE_EVERY_S, open_sqlite_stores
    from focal.models.memory import Episode
    from focal.models.session import Session

    db = tmp_path / "focal.db"
    stores = open_sqlite_stores(db)
    past, future = int(time.time()) - 60, int(time.time()) + 3600
    stores.turns.put(make_record("old", 1, expires_at=past))
    stores.sessions.save(Session(tenant_id="acme", agent_id="support", session_id="gone", customer_id="c1",
                                 expires_at=past), expected_version=0)
    episode = {"tenant_id": "acme", "agent_id": "support", "customer_id": "c1", "session_id": "s0", "asked": "a",
               "decided": "d", "created_at": time.time() - 91 * 86400}
    stores.episodes.put(Episode(**episode, turn_id="old", expires_at=past))
    assert stores.turns.list_for_session("acme", "support", "s1") == []  # expired: invisible to reads already
    assert (_rows(db, "turns"), _rows(db, "sessions"), _rows(db, "episodes")) == (1, 1, 1)

    stores.db._pruned_at -= PRUNE_EVERY_S  # the next write prunes (at most once a minute)
    stores.turns.put(make_record("new", 2, expires_at=future))
    stores.episodes.put(Episode(**{**episode, "created_at": time.time()}, turn_id="new", expires_at=future))
    assert (_rows(db, "turns"), _rows(db, "sessions"), _rows(db, "episodes")) == (1, 0, 1)
    assert [r.turn_id for r in stores.turns.list_for_session("acme", "support", "s1")] == ["new"]
    assert [e.turn_id for e in stores.episodes.recent("acme", "support", "c1", 10)] == ["new"]
