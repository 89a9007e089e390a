"""Two readings of a draft the ticketing newcomer (tests/data/newcomer_tickets) met: "transfer" moves money only when
what it moves may be money, and an email address ends where a new sentence begins."""

from __future__ import annotations

import pytest

from focal.enforcement.draft_reading import read_amount
from focal.enforcement.facts import without_contacts
from focal.models.agent import AmountWords, ProfileFieldDefinition

REFUND = ProfileFieldDefinition(
    field_name="refund_promised", field_type="money", description="The amount a reply promises to refund.",
    extraction_hints=["refund", "refunded"], amount_words=AmountWords(verbs=["refund"], purchases=["ticket", "tickets"]),
    sources=["response"], default=0)


@pytest.mark.parametrize("draft", [
    "I'll transfer the tickets of booking TK551204 to Lena Fischer.",
    "I'll transfer your booking to your sister.",
    "We transferred these seats to the balcony.",
])
def test_handing_a_thing_over_promises_no_money(draft: str) -> None:
    reading = read_amount(REFUND, draft, [], frozenset())
    assert reading.value is None and reading.uncertain is None and not reading.cue


@pytest.mark.parametrize(("draft", "value"), [
    ("I'll transfer €40 to your card.", 40.0),
    ("I'll transfer the €40 back to you today.", 40.0),
])
def test_transferring_money_is_still_read(draft: str, value: float) -> None:
    assert read_amount(REFUND, draft, [], frozenset()).value == value


@pytest.mark.parametrize("draft", ["I'll transfer the money to you.", "I'll transfer the full amount.", "I'll transfer it all."])
def test_transferring_an_unstated_whole_cannot_be_read(draft: str) -> None:
    assert read_amount(REFUND, draft, [], frozenset()).uncertain


def test_an_address_ends_before_a_new_sentence() -> None:
    text = "The tickets are on their way to lena.fischer@example.de. Reference TR-1204."
    assert "Reference TR-1204" in without_contacts(text)
    assert "lena.fischer" not in without_contacts(text)


def test_a_spaced_out_address_is_still_one() -> None:
    assert "evil" not in without_contacts("write to bob @ evil . com today")
