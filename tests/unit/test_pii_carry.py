"""A card typed over several messages (`focal.pii_carry`): what the session keeps, and when a card is complete.

The session keeps, per recent message, the count of the digits it ended with and their two Luhn sums mod
10 — never the digits; a later message whose first number completes a Luhn-valid card with them yields the
rules that mask every part, and names the earlier turns whose records are masked again.
"""

from __future__ import annotations

import re

import pytest

from focal.models.session import DigitTail, PiiCarry
from focal.pii import mask_text
from focal.pii_carry import CarryPlan
from focal.pii_text import DigitRule, luhn_sums, luhn_valid

CARDS = ["4111111111111111", "5105105105105100", "378282246310005", "6011000990139424", "4000056655665556",
         "3530111333300000", "4222222222222"]


def _converse(messages: list[str]) -> list[CarryPlan]:
    carry, plans = PiiCarry(), []
    for n, message in enumerate(messages):
        plan = CarryPlan.of(carry, message, "", f"t{n}", float(n))
        plans.append(plan)
        carry = plan.carry
    return plans


def _stored(plans: list[CarryPlan], messages: list[str]) -> list[str]:
    """Each message as stored at the end: masked under its own turn's rules, then under every later turn's that
    named it (the records masked again)."""
    out = []
    for n, message in enumerate(messages):
        text = mask_text(message, rules=plans[n].rules)
        for later in plans[n + 1:]:
            if f"t{n}" in [t.turn_id for t in later.earlier]:
                text = mask_text(text, rules=later.rules)
        out.append(text)
    return out


@pytest.mark.parametrize("card", CARDS)
def test_every_split_in_two_messages_completes_the_card_and_masks_both_parts(card: str) -> None:
    assert luhn_valid(card)
    for cut in range(1, len(card)):
        messages = ["my card is " + card[:cut], card[cut:] + " thanks"]
        plans = _converse(messages)
        assert [t.turn_id for t in plans[1].earlier] == ["t0"], cut
        stored = _stored(plans, messages)
        assert stored[0] == "my card is ****" and stored[1].endswith(" thanks"), (cut, stored)
        assert not re.search(r"\d{5}", "".join(stored).replace(" ", ""))


@pytest.mark.parametrize("card", CARDS[:3])
def test_a_card_in_three_messages_of_digits_alone_is_completed_by_the_third(card: str) -> None:
    parts = [card[:4], card[4:9], card[9:]]
    plans = _converse(parts)
    assert [t.turn_id for t in plans[2].earlier] == ["t0", "t1"]
    stored = _stored(plans, parts)
    assert stored[:2] == ["****", "****"] and stored[2] == f"**** **** **** {card[-4:]}"


def test_the_carry_holds_counts_and_sums_never_the_digits() -> None:
    plans = _converse(["my card is 5105 1051 0510"])
    carry = plans[0].carry.model_dump(mode="json")
    assert carry["tails"] == [{"turn_id": "t0", "at": 0.0, "count": 12, "sums": list(luhn_sums("510510510510")),
                               "shown": None}]
    assert "5105" not in str(carry) and "1051" not in str(carry)


def test_a_message_with_no_number_ends_the_chain_and_a_longer_chain_keeps_its_newest_18_digits() -> None:
    plans = _converse(["4111 1111", "thanks", "1111 1111"])
    assert plans[1].carry.tails == [] and plans[2].earlier == () and plans[2].rules == ()
    plans = _converse(["12345", "67890", "12345", "67890"])
    assert [t.turn_id for t in plans[-1].carry.tails] == ["t1", "t2", "t3"]  # 20 digits: the oldest five dropped


def test_numbers_that_make_no_luhn_valid_card_are_left_alone() -> None:
    plans = _converse(["order 1234567", "and 8901234 please"])  # 14 digits, Luhn-invalid
    assert not luhn_valid("12345678901234") and plans[1].rules == () and plans[1].earlier == ()


def test_a_code_after_a_card_or_a_request_for_it_is_a_security_code() -> None:
    plans = _converse(["4242 4242 4242 4242", "737", "order 1234"])
    assert [r.mask for r in plans[1].rules] == ["[cvv]"] and not plans[2].rules
    carry = CarryPlan.of(PiiCarry(), "hello", "What is the CVV on the back of your card?", "t0", 0.0).carry
    assert carry.cvv_due and [r.mask for r in CarryPlan.of(carry, "it's 7373", "", "t1", 1.0).rules] == ["[cvv]"]


def _plans(turns: list[tuple[str, str]]) -> list[CarryPlan]:
    carry, plans = PiiCarry(), []
    for n, (message, response) in enumerate(turns):
        plans.append(CarryPlan.of(carry, message, response, f"t{n}", float(n)))
        carry = plans[-1].carry
    return plans


def _tail(turn: int, count: int, sums: tuple[int, int], shown: str | None = None) -> DigitTail:
    return DigitTail(turn_id=f"t{turn}", at=float(turn), count=count, sums=sums, shown=shown)


def test_the_whole_plan_of_each_turn() -> None:
    """Each turn's plan in full: the rules it masks with, the earlier turns masked again, the carry it leaves."""
    first, second = _plans([("my card is 4111 1111", ""), ("1111 1111 thanks", "")])
    assert first == CarryPlan(carry=PiiCarry(tails=[_tail(0, 8, (8, 5))]))
    assert second == CarryPlan(carry=PiiCarry(cvv_due=True), earlier=(_tail(0, 8, (8, 5)),), rules=(
        DigitRule(8, (2, 2), "**** **** **** 1111", "11111111"), DigitRule(8, (8, 5), "****")))

    # asked for the card and its code: the code after the card's last part is masked as a code
    first, second = _plans([("4111", "What is the card number and its CVV?"), ("1111 1111 1111 and 123", "")])
    assert first == CarryPlan(carry=PiiCarry(tails=[_tail(0, 4, (2, 9))], cvv_due=True))
    assert second == CarryPlan(carry=PiiCarry(cvv_due=True), earlier=(_tail(0, 4, (2, 9)),), rules=(
        DigitRule(12, (8, 8), "**** **** **** 1111", "111111111111"), DigitRule(4, (2, 9), "****"),
        DigitRule(3, (8, 0), "[cvv]", "123")))

    # after a card: each code standing alone is masked; the last number (two digits) starts a new chain
    _, after = _plans([("4242 4242 4242 4242", ""), ("737 and 12 and 4567", "")])
    assert after == CarryPlan(carry=PiiCarry(tails=[_tail(1, 2, (4, 5))]), rules=(
        DigitRule(3, (0, 3), "[cvv]", "737"), DigitRule(4, (3, 6), "[cvv]", "4567")))

    # a masked card is the start of a longer one: the four digits its mask shows go with it
    card, longer = _plans([("card 4111111111111111", ""), ("003 ok", "")])
    assert card == CarryPlan(carry=PiiCarry(tails=[_tail(0, 16, (0, 7), "1111")], cvv_due=True))
    assert longer == CarryPlan(carry=PiiCarry(cvv_due=True), earlier=(_tail(0, 16, (0, 7), "1111"),), rules=(
        DigitRule(3, (3, 6), "****", "003"), DigitRule(4, (6, 6), "****", "1111", shown=True)))

    # no customer message (a resumed approval): the carry goes on as it was
    *_, code, resumed = _plans([("card 4111111111111111", ""), ("5105", ""), ("", "")])
    assert code == CarryPlan(carry=PiiCarry(), rules=(DigitRule(4, (7, 8), "[cvv]", "5105"),))
    assert resumed == CarryPlan(carry=PiiCarry())
    carry = PiiCarry(tails=[_tail(0, 4, (2, 9))], cvv_due=True)
    assert CarryPlan.of(carry, "", "Anything else?", "t1", 1.0) == CarryPlan(carry=carry)

    # a card and its code in one message, then digits that complete no card with it: a chain of their own
    _, then = _plans([("card 4111 1111 1111 1111 then 5105", ""), ("1051 0510 5100", "")])
    assert then == CarryPlan(carry=PiiCarry(tails=[_tail(1, 12, (3, 7))]))
