"""PII typed in disguise is stored masked: whole turns through the local runner, asserted on what the real
SQLite stores (sessions, turn records, episodes) and the local events file hold afterwards.

A hostile run stored in clear: a card number spelled out in words (English, Spanish, German, French), a
card sent in two halves over two messages (or in four quarters), e-mail addresses written ``a @ b.com``,
``a[at]b [dot] com``, ``a(at)b.com`` or with a quoted local part, an SSN written with slashes, phone numbers
with a ``00`` international prefix, and a card's security code (CVV) typed next to the card or its words
(PCI DSS forbids storing a CVV at all, masked or not). Each is now read on the folded view of the text
(`focal.pii_view`) and masked where it was typed; a card completed by a later message is masked in the
earlier message's records too. Ordinary ids, order numbers, amounts, dates and times are never masked.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

HERE = Path(__file__).resolve().parent
BILLING = HERE / "pii_agent" / "agent.yaml"
RETAIL = HERE.parents[1] / "examples" / "retail" / "agent.yaml"


class Conversation:
    def __init__(self, runner: LocalRunner, db: Path, session: str, agent: str = "billing") -> None:
        self.runner, self.db, self.session, self.agent, self.n = runner, db, session, agent, 0

    def say(self, message: str) -> str:
        self.n += 1
        return self.runner.turn(TurnRequest(tenant_id="acme", agent_id=self.agent, session_id=self.session,
                                            customer_id=f"cust-{self.session}", turn_id=f"{self.session}-t{self.n}",
                                            message=message)).response

    def stored(self) -> str:
        """Every text the stores wrote for this conversation (sessions, turn records, episodes) and the events
        file holds (numbers such as timestamps and embeddings left out)."""
        docs: list[Any] = []
        with sqlite3.connect(self.db) as conn:
            for table in ("sessions", "turns", "episodes"):
                key = "customer_id" if table == "episodes" else "session_id"
                value = f"cust-{self.session}" if table == "episodes" else self.session
                docs += [json.loads(doc) for (doc,) in conn.execute(f"SELECT doc FROM {table} WHERE {key}=?", (value,))]
        events = self.db.parent / "events.jsonl"
        if events.exists():
            docs += [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines() if line.strip()]
        return "\n#####\n".join(_strings(docs))  # no number runs on from one text into the next

    def history(self) -> list[str]:
        with sqlite3.connect(self.db) as conn:
            (doc,) = conn.execute("SELECT doc FROM sessions WHERE session_id=?", (self.session,)).fetchone()
        return [h["text"] for h in json.loads(doc)["history"] if h["role"] == "user"]

    def recorded(self) -> list[str]:
        """The message of each turn record, as stored."""
        with sqlite3.connect(self.db) as conn:
            rows = conn.execute("SELECT doc FROM turns WHERE session_id=? ORDER BY turn_number", (self.session,))
            return [json.loads(doc)["state"]["request"]["message"] for (doc,) in rows]


HELPDESK = """
id: helpdesk
name: Helpdesk
description: Answers questions; it keeps no field, so every text is masked by the text rules alone.
persona: You are a helpdesk.
greeting: Hi.
out_of_scope_message: I can answer questions about your account.
"""


@pytest.fixture(scope="module")
def helpdesk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalRunner, Path]]:
    folder = tmp_path_factory.mktemp("helpdesk")
    (folder / "agent.yaml").write_text(HELPDESK)
    db = folder / "state" / "focal.db"
    yield LocalRunner(local_deps(folder / "agent.yaml", db)), db


@pytest.fixture
def desk(helpdesk: tuple[LocalRunner, Path]) -> Conversation:
    runner, db = helpdesk
    return Conversation(runner, db, f"h{next(_names)}", agent="helpdesk")


@pytest.fixture(scope="module")
def billing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalRunner, Path]]:
    db = tmp_path_factory.mktemp("pii") / "focal.db"
    yield LocalRunner(local_deps(BILLING, db)), db


_names = iter(range(10_000))


@pytest.fixture
def chat(billing: tuple[LocalRunner, Path]) -> Conversation:
    runner, db = billing
    return Conversation(runner, db, f"s{next(_names)}")


_GENERATED_ID = re.compile(r"\b(?=[0-9a-f-]*[a-f])[0-9a-f]{8}(?:-?[0-9a-f]{4}){3}-?[0-9a-f]{12}\b|\b(?=[0-9a-f]*[a-f])[0-9a-f]{16,}\b")


def _strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for value in obj.values():
            yield from _strings(value)
    elif isinstance(obj, list):
        for item in obj:
            yield from _strings(item)
    elif isinstance(obj, str):
        # a generated id (a uuid, a hex digest) holds any digit run by chance: "decea8b54821…" stores no code 4821
        yield _GENERATED_ID.sub("<id>", obj)


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _card_exposed(stored: str, card: str) -> bool:
    """More of the card than its last four digits can be read back: any run of 5+ of its digits (in order,
    whatever separates them) other than inside its last four, or its first digits."""
    runs = re.findall(r"\d(?:[\W_]{0,3}\d)*", stored)
    plain = [_digits(r) for r in runs]
    head = card[:-4]
    return any(len(p) >= 5 and p in card for p in plain) or any(head[i:i + 5] in p for p in plain for i in range(len(head) - 4))


WORDS = {  # (what comes before, the card in words, the card)
    "English": ("my card number is ", "four one one one one one one one one one one one one one one one",
                "4111111111111111"),
    "Spanish": ("mi tarjeta es ", "cinco cinco cinco cinco, cinco cinco cinco cinco, cinco cinco cinco cinco, "
                "cuatro cuatro cuatro cuatro", "5555555555554444"),
    "German": ("meine Karte: ", "fünf eins null fünf eins null fünf eins null fünf eins null fünf eins null null",
               "5105105105105100"),
    "French": ("ma carte est ", "quatre deux quatre deux quatre deux quatre deux quatre deux quatre deux quatre deux "
               "quatre deux", "4242424242424242"),
    "digits and words mixed": ("card ", "4111 one one one one 1111 one-one-one-one", "4111111111111111"),
    "capitals and hyphens": ("CARD: ", "Four-One-One-One One-One-One-One One-One-One-One One-One-One-One",
                             "4111111111111111"),
}


@pytest.mark.parametrize(("before", "spelled", "card"), list(WORDS.values()), ids=list(WORDS))
def test_a_card_spelled_out_in_words_is_stored_masked(chat: Conversation, before: str, spelled: str, card: str) -> None:
    chat.say(before + spelled)
    assert chat.history() == [f"{before}**** **** **** {card[-4:]}"]
    stored = chat.stored()
    assert spelled[:20] not in stored and spelled[-20:] not in stored and not _card_exposed(stored, card)


def test_a_card_sent_in_two_halves_over_two_turns_is_masked_in_both_turns_records(chat: Conversation) -> None:
    chat.say("I want to pay my invoice")
    chat.say("my card is 4111 1111")
    chat.say("1111 1111")
    stored = chat.stored()
    assert not _card_exposed(stored, "4111111111111111")
    history = chat.history()
    assert "4111" not in history[1] and "**** **** **** 1111" in history[2]


def test_a_card_sent_in_four_quarters_with_words_between_is_masked_everywhere(chat: Conversation) -> None:
    for part in ("I want to pay my invoice", "5105", "1051", "0510", "5100 thanks"):
        chat.say(part)
    stored = chat.stored()
    assert not _card_exposed(stored, "5105105105105100")
    for quarter in ("5105", "1051", "0510"):
        assert re.search(rf"(?<!\d){quarter}(?!\d)", stored) is None
    assert chat.history()[-1] == "**** **** **** 5100 thanks"


def test_the_earlier_half_is_masked_in_the_stored_turn_record_and_episode(chat: Conversation) -> None:
    chat.say("my card is 4242 4242 4242")
    chat.say("4242 please charge it")
    with sqlite3.connect(chat.db) as conn:
        first = json.loads(conn.execute("SELECT doc FROM turns WHERE turn_id=?", (f"{chat.session}-t1",)).fetchone()[0])
        episode = json.loads(conn.execute("SELECT doc FROM episodes WHERE turn_id=?", (f"{chat.session}-t1",)).fetchone()[0])
    assert "4242" not in first["state"]["request"]["message"] and "4242" not in episode["asked"]
    assert not _card_exposed(chat.stored(), "4242424242424242")


EMAILS = {
    "spaced @": "jane.roe @ example.com",
    "spaced @ and dot": "jane.roe @ example . com",
    "bracketed at and dot": "jane.roe[at]example [dot] com",
    "parenthesised at": "jane.roe(at)example.com",
    "braced at and dot": "jane.roe {at} example {dot} com",
    "spelled at and dot": "jane.roe at example dot com",
    "quoted local part": '"jane roe"@example.com',
    "Spanish arroba and punto": "jane.roe arroba example punto com",
}


@pytest.mark.parametrize("typed", list(EMAILS.values()), ids=list(EMAILS))
def test_an_obfuscated_email_address_is_stored_masked(desk: Conversation, typed: str) -> None:
    desk.say(f"write to me at {typed} please")
    assert "jane" not in desk.stored().lower() and desk.history() == ["write to me at [email] please"]


@pytest.mark.parametrize("typed", ["123/45/6789", "123 / 45 / 6789", "123_45_6789"])
def test_an_ssn_with_slashes_or_other_separators_is_stored_masked(desk: Conversation, typed: str) -> None:
    desk.say(f"my SSN is {typed}")
    assert "6789" not in desk.stored() and desk.history() == ["my SSN is [ssn]"]


@pytest.mark.parametrize("typed", ["0044 20 7946 0958", "0044 7911 123456", "0044-20-7946-0958", "00 49 30 901820",
                                   "011 44 20 7946 0958", "+44 (0)20 7946 0958", "0033 1 42 68 53 00"])
def test_a_phone_number_with_an_international_prefix_is_stored_masked(desk: Conversation, typed: str) -> None:
    desk.say(f"call me on {typed} tomorrow")
    assert _digits(typed)[-6:] not in _digits(desk.stored()) and desk.history() == ["call me on [phone] tomorrow"]


CVVS = {
    "after the card": ("card 4242 4242 4242 4242 cvv 737", "737"),
    "after the card, no word": ("4242 4242 4242 4242 737", "737"),
    "with an expiry between": ("4242 4242 4242 4242 exp 12/27 code 7373", "7373"),
    "security code in words": ("the security code is 737", "737"),
    "Spanish": ("el código de seguridad: 737", "737"),
    "German": ("die Prüfnummer lautet 737", "737"),
    "French": ("le cryptogramme visuel est 737", "737"),
    "CVC before the digits": ("CVC2=4821", "4821"),
}


@pytest.mark.parametrize(("message", "cvv"), list(CVVS.values()), ids=list(CVVS))
def test_a_security_code_is_never_stored(chat: Conversation, message: str, cvv: str) -> None:
    chat.say(message)
    assert cvv not in chat.stored() and "[cvv]" in chat.history()[0]


def test_a_security_code_next_to_a_card_masked_in_an_earlier_turn_is_never_stored(chat: Conversation) -> None:
    chat.say("I want to pay my invoice")
    chat.say("4242 4242 4242 4242")
    assert "**** **** **** 4242" in chat.history()[1]
    chat.say("cvv 737")
    chat.say("and the code on the back is 7373")
    stored = chat.stored()
    assert "737" not in stored and chat.history()[2:] == ["cvv [cvv]", "and the code on the back is [cvv]"]


def test_a_security_code_sent_alone_after_the_card_is_never_stored(chat: Conversation) -> None:
    chat.say("I want to pay my invoice")
    chat.say("4242 4242 4242 4242")
    chat.say("737")
    assert chat.history()[1:] == ["**** **** **** 4242", "[cvv]"]
    assert re.search(r"(?<!\d)737(?!\d)", chat.stored()) is None


def test_ordinary_ids_order_numbers_amounts_dates_and_times_are_not_masked(tmp_path: Path) -> None:
    db = tmp_path / "focal.db"
    runner = LocalRunner(local_deps(RETAIL, db))
    chat = Conversation(runner, db, "plain", agent="retail")
    messages = [
        "Where is order A1002?",
        "and W7678072, placed on 2024-01-15 at 10:30, total $1,250.00",
        "I paid 129.99 on 15/01/2024; the other one was 4,500 EUR on 03.02.2024 at 09:15-10:45",
        "ticket 1234567890123, booking 4155550199, ref 415 555 0199",
        "reply at 14:30, I have 2 items and 3 boxes, room 1205, one or two days",
        "for 8 people at six o'clock, order 20931 and order 55120",
        "4111 is my PIN hint? no: my customer number is 88812 and zip 90210",
    ]
    for message in messages:
        chat.say(message)
    assert chat.recorded() == messages and chat.history() == messages[-5:]
    stored = chat.stored()
    for message in messages:
        assert json.dumps(message)[1:-1] in stored
    assert "[" not in "".join(chat.history()) and "****" not in stored


def test_digits_inside_an_identifier_are_no_card_but_a_card_glued_to_a_word_is():
    """An approval id's hex (`apr-45870425693143a7bd2a`) holds a Luhn-valid run now and then: masking it at rest
    broke the stored approval; a card typed against a word is still a card."""
    from focal.pii import mask_text

    for ident in ("apr-45870425693143a7bd2a", "ab4111111111111111cd", "tok 9a4111111111111111"):
        assert mask_text(ident) == ident
    assert "4111111111111111" not in mask_text("my card is4111111111111111")
    assert "4111111111111111" not in mask_text("card: 4111 1111 1111 1111")
