"""The always-on text rules of masking at rest (`focal.pii_text`, applied by `focal.pii` to every stored string).

Card numbers are found whatever short separator joins their digit groups — a no-break or narrow space, a
dash of any width, an underscore, a zero-width or other invisible character — and still only when Luhn-valid;
lists of amounts or dates written one after another are not read as one number. E-mail addresses, SSNs
(ddd-dd-dddd) and phone numbers written like one become `[email]`, `[ssn]`, `[phone]`; bare digit runs (order,
booking, tracking references) stay. A contact that is itself the value of a slot, variable or argument is kept,
there and where the same document's text repeats it; `pii: true` fields still win.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from focal.config.loader import load_agent
from focal.pii import luhn_valid, mask_record, mask_text

AGENT = load_agent(Path(__file__).resolve().parent / "pii_agent" / "agent.yaml")  # `phone` is pii: true

SEPARATED = {  # how the digit groups of 5555 5555 5555 4444 (Luhn-valid) were joined
    "no-break space": "\u00a0", "narrow no-break space": "\u202f", "thin space": "\u2009", "en dash": "\u2013",
    "em dash": "\u2014", "spaced en dash": " \u2013 ", "underscore": "_", "zero-width space": "\u200b",
    "word joiner": "\u2060", "soft hyphen": "\u00ad", "variation selector": "\ufe0f",
    "combining grapheme joiner": "\u034f", "zero-width space then a space": "\u200b ", "middle dot": "\u00b7",
    "comma": ",", "many zero-width spaces": "\u200b" * 6,
}


@pytest.mark.parametrize("separator", list(SEPARATED.values()), ids=list(SEPARATED))
def test_a_card_is_masked_whatever_separator_joins_its_groups(separator: str) -> None:
    typed = separator.join(["5555", "5555", "5555", "4444"])
    masked = mask_text(f"my card is {typed}.")
    assert masked == "my card is **** **** **** 4444."
    assert mask_text(masked) == masked


@pytest.mark.parametrize("typed", ["5555\u00a05555\u00a05555\u00a04443", "1234_5678_9012_3456_7",
                                   "9999\u20139999\u20139999\u20139994"])
def test_a_long_number_that_fails_luhn_is_left_as_typed_with_any_separator(typed: str) -> None:
    assert not luhn_valid(re.sub(r"\D", "", typed))
    assert mask_text(f"reference {typed} please") == f"reference {typed} please"


@pytest.mark.parametrize("text", [
    "$41.11, $11.11, $11.11 and $11.11 today",  # 4111111111111111 is Luhn-valid; amounts one after another
    "from 2024-01-15, 2024-02-15 to 2024-03-16",
    "4111\n\n\n\n1111\n\n\n\n1111\n\n\n\n1111",  # four line breaks between groups (one per line is a card)
    "4111\n1111,1111\n1111",  # line breaks and a comma: two kinds
    "4111 :: 1111 :: 1111 :: 1111",  # separators of four characters
])
def test_numbers_written_one_after_another_are_not_one_card(text: str) -> None:
    assert mask_text(text) == text


def test_a_card_split_by_a_newline_elsewhere_still_masks_the_part_that_is_a_card() -> None:
    assert mask_text("4111\u00a01111\u00a01111\u00a01111\n2024") == "**** **** **** 1111\n2024"


@pytest.mark.parametrize(("typed", "mask"), [
    ("jane.o'neil+news@mail.example.co.uk", "[email]"),
    ("JOHN_DOE@Example.ORG", "[email]"),
    ("078-05-1120", "[ssn]"),
    ("078\u201305\u20131120", "[ssn]"),
    ("+1 415 555 0199", "[phone]"),
    ("+14155550199", "[phone]"),
    ("+44 20 7946 0958", "[phone]"),
    ("+49 (30) 901820-0", "[phone]"),
    ("(415) 555-0199", "[phone]"),
    ("415-555-0199", "[phone]"),
    ("415.555.0199", "[phone]"),
    ("1-800-555-0199", "[phone]"),
    ("0044 20 7946 0958", "[phone]"),
    ("00 49 30 901820", "[phone]"),
    ("011 44 20 7946 0958", "[phone]"),
    ("123/45/6789", "[ssn]"),
    ("123_45_6789", "[ssn]"),
    ("jane [at] example [dot] com", "[email]"),
    ('"jane roe"@example.com', "[email]"),
])
def test_contacts_typed_in_text_are_masked(typed: str, mask: str) -> None:
    masked = mask_text(f"reach me at {typed}, thanks")
    assert masked == f"reach me at {mask}, thanks"
    assert mask_text(masked) == masked


@pytest.mark.parametrize("text", [
    "booking 4155550199", "tracking 1Z999AA10123456784", "ref 415 555 0199", "call 555 0199",
    "on 2024-01-15 at 10:30-11:45", "v1.2.3 at 192.168.001.010", "+1 555", "order B-415-555-0199",
    "12345-678-9012", "user@localhost", "id 078-05-11201", "order 0012345678901", "on 12/31/2024",
    "ref 0044-123", "look at index.html",
])
def test_digit_runs_and_lookalikes_that_are_no_contact_stay(text: str) -> None:
    assert mask_text(text) == text


def _doc(slots: dict, message: str) -> dict:
    return {"tenant_id": "acme", "agent_id": "billing", "session_id": "s", "customer_id": "new.me@example.org",
            "slots": slots, "commands": [{"name": "SetSlot", "slot": "email", "value": slots.get("email")}],
            "history": [{"role": "user", "text": message}]}


def test_a_contact_held_whole_as_a_value_is_kept_there_and_in_the_same_documents_text() -> None:
    message = "use NEW.ME@example.org, not old@example.org; SSN 078-05-1120; call (415) 555-0199"
    doc = _doc({"email": "new.me@example.org", "callback": "415-555-0199", "note": "ssn 078-05-1120"}, message)
    masked = mask_record(doc, AGENT)
    assert masked["slots"] == {"email": "new.me@example.org", "callback": "415-555-0199", "note": "ssn [ssn]"}
    assert masked["commands"][0]["value"] == "new.me@example.org"
    assert masked["history"][0]["text"] == "use NEW.ME@example.org, not [email]; SSN [ssn]; call (415) 555-0199"
    assert masked["customer_id"] == "new.me@example.org"  # store keys are never rewritten


def test_without_the_value_the_same_text_is_masked_and_pii_fields_still_win() -> None:
    message = "use new.me@example.org and call (415) 555-0199"
    assert mask_record(_doc({}, message), None)["history"][0]["text"] == "use [email] and call [phone]"
    masked = mask_record(_doc({"phone": "(415) 555-0199"}, message), AGENT)  # `phone` is pii: true
    assert masked["slots"]["phone"] == "[redacted:phone]"
    assert masked["history"][0]["text"] == "use [email] and call [redacted:phone]"
    # The value given as context (the turn that wrote a text) keeps it too, as persist does for history.
    context = {"session": {"slots": {"email": "new.me@example.org"}}}
    assert mask_record(message, None, context=context) == "use new.me@example.org and call [phone]"
