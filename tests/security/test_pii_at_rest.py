"""PII at rest on the shipped local defaults (`local_deps`: SQLite, the agent file, offline components).

A card number typed by a customer is used in the turn (the tool gets it, the answer may repeat it)
but what is stored — the session (history, slots, variables), the turn record (request.message,
context.message, drafts, response, commands, tool arguments and outputs, the result) and the episode —
keeps only its last four digits. A `pii: true` field (the test agent's `phone`) is stored as
`[redacted:phone]` while the conversation goes on; a 13-digit tracking number that fails Luhn and
the retail agent's order ids are untouched. Also on the conflict path (`count_turn`) and through the
fallback stage. The test agent is tests/security/pii_agent/agent.yaml.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from focal.errors import VersionConflict
from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

HERE = Path(__file__).resolve().parent
BILLING = HERE / "pii_agent" / "agent.yaml"
RETAIL = HERE.parents[1] / "examples" / "retail" / "agent.yaml"
CARD_DIGITS = "4242424242424242"
PHONE = "+1 (555) 867-5309"
TRACKING = "1234567890123"  # 13 digits, fails Luhn


def _turn(runner: LocalRunner, session: str, n: int, message: str, agent: str = "billing",
          customer: str = "cust-1") -> TurnResult:
    return runner.turn(TurnRequest(tenant_id="acme", agent_id=agent, session_id=session, customer_id=customer,
                                   turn_id=f"{session}-t{n}", message=message))


def _docs(db: Path, table: str) -> list[dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        return [json.loads(doc) for (doc,) in conn.execute(f"SELECT doc FROM {table}")]


def _stored(db: Path) -> str:
    """Every document the stores wrote, as text."""
    return json.dumps([_docs(db, t) for t in ("sessions", "turns", "episodes")])


def _phone_leaked(text: str) -> bool:
    return re.search(r"555\D{0,3}867\D{0,3}5309", text) is not None


def _card_leaked(text: str, digits: str = CARD_DIGITS) -> bool:
    """The full number is there, in any of the separators a customer types (or none)."""
    return digits in re.sub(r"(?<=\d)(?:[ ./-]|  )(?=\d)", "", text)


@pytest.fixture
def billing(tmp_path: Path) -> tuple[LocalRunner, Path]:
    db = tmp_path / "focal.db"
    return LocalRunner(local_deps(BILLING, db)), db


@pytest.mark.parametrize("typed", ["4242 4242 4242 4242", "4242-4242-4242-4242", "4242.4242.4242.4242",
                                   "4242424242424242", "4242  4242  4242  4242"])
def test_a_card_number_in_a_message_is_stored_with_its_last_four_digits_only(billing, typed: str) -> None:
    runner, db = billing
    _turn(runner, "s1", 1, "I want to pay my invoice")
    result = _turn(runner, "s1", 2, f"my card is {typed}")

    # The live turn used the number and answers with it (the agent repeats it on purpose).
    assert [(t["tool_id"], t["arguments"]) for t in result.tool_calls] == [("check_card", {"card_number": typed})]
    assert result.response == f"Card {typed}: accepted."

    masked = "**** **** **** 4242"
    [session] = _docs(db, "sessions")
    assert session["slots"]["card_number"] == masked and session["variables"]["charged_card"] == masked
    assert session["history"][2]["text"] == f"my card is {masked}"
    assert session["history"][3]["text"] == f"Card {masked}: accepted."

    record = next(r for r in _docs(db, "turns") if r["turn_id"] == "s1-t2")
    state = record["state"]
    assert state["request"]["message"] == f"my card is {masked}"
    assert state["sensor"]["context"]["message"] == f"my card is {masked}"
    assert [d["text"] for d in state["generate"]["drafts"]] == [f"Card {masked}: accepted."]
    assert state["response"] == record["result"]["response"] == f"Card {masked}: accepted."
    assert [c["value"] for c in state["sensor"]["commands"] if c["name"] == "SetSlot"] == [masked]
    assert [c["value"] for c in record["result"]["commands"] if c["name"] == "SetSlot"] == [masked]
    for calls in (state["tools"]["tool_calls"], record["result"]["tool_calls"]):
        assert [(t["arguments"], t["outputs"]) for t in calls] == [({"card_number": masked},
                                                                    {"payment_status": "accepted", "charged_card": masked})]
    assert state["session"]["slots"]["card_number"] == masked
    assert state["sensor"]["context"]["extracted_entities"]["card_number"] == masked

    assert [e["asked"] for e in _docs(db, "episodes")] == ["I want to pay my invoice", f"my card is {masked}"]
    stored = _stored(db)
    assert not _card_leaked(stored) and "4242-4242" not in stored and "4242 4242" not in stored
    # What the store adapters give back is the masked document too.
    [read] = [r for r in runner.deps.turns.list_for_session("acme", "billing", "s1") if r.turn_id == "s1-t2"]
    assert read.result.response == f"Card {masked}: accepted."


def _reset_retail_tools() -> None:
    from example_tools import reset_state

    from focal.config.loader import load_agent

    reset_state(load_agent(RETAIL), "acme")


def test_the_retail_refund_goes_on_with_the_order_id_while_the_card_is_masked(tmp_path: Path) -> None:
    _reset_retail_tools()
    db = tmp_path / "focal.db"
    runner = LocalRunner(local_deps(RETAIL, db))
    first = _turn(runner, "r1", 1, "I want a refund for order A1001, the card I paid with is 4242 4242 4242 4242",
                  agent="retail", customer="c-100")
    assert "Shall I go ahead?" in first.response
    second = _turn(runner, "r1", 2, "yes", agent="retail", customer="c-100")  # the order id read back from storage
    _reset_retail_tools()

    assert [(t["tool_id"], t["status"], t["arguments"]["order_id"]) for t in second.tool_calls] == [
        ("issue_refund", "ok", "A1001")]
    [session] = _docs(db, "sessions")
    assert session["slots"] == {"order_id": "A1001"}
    assert session["history"][0]["text"] == "I want a refund for order A1001, the card I paid with is **** **** **** 4242"
    stored = _stored(db)
    assert not _card_leaked(stored) and "**** **** **** 4242" in stored and "A1001" in stored


def test_a_pii_field_is_redacted_at_rest_and_the_flow_goes_on(billing) -> None:
    runner, db = billing
    _turn(runner, "s2", 1, "Please call me back")
    given = _turn(runner, "s2", 2, PHONE)
    assert given.response == f"We'll call {PHONE}. When suits you best?"  # the live turn has the value

    [session] = _docs(db, "sessions")
    assert session["slots"] == {"phone": "[redacted:phone]"}
    assert [h["text"] for h in session["history"][2:]] == ["[redacted:phone]", "We'll call [redacted:phone]. When suits you best?"]

    booked = _turn(runner, "s2", 3, "tomorrow at 10am")  # the next turn reads the masked session and goes on
    assert booked.response == "Booked: we'll call you tomorrow at 10am."
    assert booked.scenario == {"id": "callback", "step_id": "booked"}

    [session] = _docs(db, "sessions")
    assert session["slots"] == {"phone": "[redacted:phone]", "callback_time": "tomorrow at 10am"}
    record = next(r for r in _docs(db, "turns") if r["turn_id"] == "s2-t2")
    state = record["state"]
    assert state["request"]["message"] == state["sensor"]["context"]["message"] == "[redacted:phone]"
    assert state["sensor"]["context"]["extracted_entities"]["phone"] == "[redacted:phone]"
    assert [c["value"] for c in state["sensor"]["commands"] if c["name"] == "SetSlot"] == ["[redacted:phone]"]
    assert state["response"] == "We'll call [redacted:phone]. When suits you best?"
    assert [e["asked"] for e in _docs(db, "episodes")][1] == "[redacted:phone]"
    stored = _stored(db)
    assert not _phone_leaked(stored) and "[redacted:phone]" in stored


def test_a_long_number_that_fails_luhn_is_stored_as_typed_beside_a_masked_card(billing) -> None:
    runner, db = billing
    _turn(runner, "s3", 1, "Where is my parcel?")
    result = _turn(runner, "s3", 2, f"it's {TRACKING}, I paid with 4242 4242 4242 4242")
    assert result.response == f"Parcel {TRACKING}: out for delivery."

    stored_message = f"it's {TRACKING}, I paid with **** **** **** 4242"  # the card beside it is masked
    [session] = _docs(db, "sessions")
    assert session["slots"]["tracking_number"] == TRACKING
    assert session["history"][2]["text"] == stored_message
    record = next(r for r in _docs(db, "turns") if r["turn_id"] == "s3-t2")
    assert record["state"]["tools"]["tool_calls"][0]["arguments"] == {"tracking_number": TRACKING}
    assert record["state"]["request"]["message"] == stored_message
    assert _docs(db, "episodes")[1]["asked"] == stored_message


class _ConflictOnce:
    """The session store, where another turn of the session saves first once (persist's save conflicts)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.armed = inner, False

    def get(self, *args: Any) -> Any:
        return self.inner.get(*args)

    def save(self, session: Any, expected_version: int) -> Any:
        if self.armed:
            self.armed = False
            raise VersionConflict("another turn saved first")
        return self.inner.save(session, expected_version)


def test_the_conflict_path_stores_the_message_masked(billing) -> None:
    runner, db = billing
    _turn(runner, "s4", 1, "Please call me back")
    runner.deps.sessions = _ConflictOnce(runner.deps.sessions)
    runner.deps.sessions.armed = True
    result = _turn(runner, "s4", 2, f"{PHONE}, and my card is 4242 4242 4242 4242")
    assert result.error is not None and result.error["code"] == VersionConflict.code

    [session] = _docs(db, "sessions")  # count_turn: the stored session (no phone slot) plus this turn's history
    assert session["slots"] == {} and session["turn_count"] == 2
    assert session["history"][2]["text"] == "[redacted:phone], and my card is **** **** **** 4242"
    stored = _stored(db)
    assert not _phone_leaked(stored) and not _card_leaked(stored)


def test_the_fallback_stage_stores_the_turn_masked(billing, monkeypatch) -> None:
    from focal.stages import generate

    runner, db = billing
    _turn(runner, "s5", 1, "Please call me back")

    def down(state: Any, deps: Any) -> Any:
        raise RuntimeError("generate down")

    monkeypatch.setattr(generate, "run", down)
    result = _turn(runner, "s5", 2, f"{PHONE} or charge 4242-4242-4242-4242")
    assert result.execution_path == "fallback" and runner.visited[-1] == "fallback"

    record = next(r for r in _docs(db, "turns") if r["turn_id"] == "s5-t2")
    assert record["state"]["request"]["message"] == "[redacted:phone] or charge **** **** **** 4242"
    [session] = _docs(db, "sessions")
    assert session["history"][2]["text"] == "[redacted:phone] or charge **** **** **** 4242"
    stored = _stored(db)
    assert not _phone_leaked(stored) and not _card_leaked(stored)
