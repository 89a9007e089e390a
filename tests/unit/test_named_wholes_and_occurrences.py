"""Red team 7, unit by unit: look-alike letters from the extended Latin blocks, cue words split by separators, letters
for digits after a currency, a known purchase named as what is given back, the same amount promised twice, a clause in
another language, and money coming back that is no share for a percentage field. The sentences (a ticket desk and a
gym) are written for these tests; the compliant ones look alike and must pass."""

from __future__ import annotations

import pytest

from focal.enforcement.amount_known import known_names, names_in
from focal.enforcement.amount_repeats import said_again, site
from focal.enforcement.reading import offline_reading
from focal.enforcement.terms import joined
from focal.models.agent import AgentConfig, AmountWords, ProfileFieldDefinition, Rule
from focal.sensing.language import foreign_parts
from focal.text.amount_styles import ambiguous_amounts
from focal.text.draft_view import as_checked as fold
from test_amount_forms import blocked

PAYBACK = ProfileFieldDefinition(field_name="payback", field_type="money", extraction_hints=["reimburse", "reimbursed"],
                                 sources=["response"], default=0,
                                 amount_words=AmountWords(verbs=["reimburse"], purchases=["membership"]))
PROMO = ProfileFieldDefinition(field_name="promo", field_type="percentage", extraction_hints=["discount", "off"],
                               sources=["response"], default=0)
GYM = AgentConfig(
    id="gym", name="Gym", profile_field_definitions=[
        PAYBACK, PROMO,
        ProfileFieldDefinition(field_name="member_ref", field_type="id", sources=["profile"]),
        ProfileFieldDefinition(field_name="membership_plan", field_type="string", sources=["profile"]),
        ProfileFieldDefinition(field_name="cancel_reason", field_type="string", sources=["message"]),
        ProfileFieldDefinition(field_name="membership_fee", field_type="money", sources=["profile"])],
    rules=[Rule(id="payback_cap", condition_text="money back", action_text="At most $50.", is_hard_constraint=True,
                enforcement_expression="payback <= 50"),
           Rule(id="promo_cap", condition_text="a discount", action_text="At most 20%.", is_hard_constraint=True,
                enforcement_expression="promo <= 20")])
KNOWN = {"member_ref": "GM-2231", "membership_plan": "Gold Flex", "cancel_reason": "moved away", "membership_fee": 90}


@pytest.mark.parametrize(("text", "read"), [
    ("ʀᴇɪᴍʙᴜʀꜱᴇ", "reimburse"), ("reimƀurse", "reimburse"), ("ɾeimburse", "reimburse"), ("ꓣꓰꓲꓟꓐꓴꓣꓢꓰ", "REIMBURSE"),
    ("Łódź", "Lodz"), ("Привет", "Привет"), ("reımburse", "reimburse"),
])
def test_extended_latin_and_other_script_look_alikes_fold(text, read):
    assert fold(text) == read


@pytest.mark.parametrize(("text", "read"), [
    ("I'll re-imburse you", "I'll reimburse you"), ("r e i m b u r s e d", "reimbursed"), ("a d.i.s.c.o.u.n.t", "a discount"),
    ("we pre-paid it", "we pre-paid it"), ("a void", "a void"), ("the member's fee", "the member's fee"),
    ("Dis-count codes", "Discount codes"), ("re imburse", "reimburse"),
])
def test_a_listed_word_split_inside_is_joined_and_nothing_else(text, read):
    assert joined(text, frozenset({"reimburse", "discount", "void", "repaid"})) == read


@pytest.mark.parametrize(("text", "doubtful"), [("$9O", True), ("$l20", True), ("$1OO.00", True), ("$lOO", True),
                                                ("$90", False), ("$90 Only", False), ("USD 90", False)])
def test_letters_for_digits_after_a_currency_read_two_ways(text, doubtful):
    assert bool(ambiguous_amounts(fold(f"I'll reimburse {text} today."))) is doubtful


def test_known_names_are_ids_and_texts_named_after_a_purchase():
    assert known_names(GYM, PAYBACK, KNOWN, {"payback"}) == ("GM-2231", "Gold Flex")  # not the reason, not the fee
    assert names_in(("GM-2231", "Gold Flex"), "your gold-flex plan") == ["Gold Flex"]


@pytest.mark.parametrize("draft", [
    "I'll reimburse GM-2231.", "GM-2231 reimbursed.", "Your Gold Flex membership will be reimbursed.",
    "GM-2231 qualifies, and the reimbursement is on its way.", "I'll reverse the payment.",
])
def test_a_named_purchase_given_back_is_its_known_amount(draft):
    assert blocked(GYM, "payback_cap", draft, known=KNOWN)


@pytest.mark.parametrize("draft", [
    "Your reimbursement for GM-2231 ($30) is on its way.", "I can look into GM-2231 for you.", "GM-2231 came to $90.",
    "Since you moved away, I can check GM-2231's options.", "I can't reimburse GM-2231.",
])
def test_a_stated_amount_a_lookup_or_a_refusal_passes(draft):
    assert not blocked(GYM, "payback_cap", draft, known=KNOWN)


def test_a_named_purchase_with_no_known_amount_is_uncertain():
    reading, ask = offline_reading(GYM, "I'll reimburse GM-2231 today.", {"payback"}, {"member_ref": "GM-2231"})
    assert "whole of GM-2231" in reading.uncertain["payback"] and ask == [PAYBACK]


@pytest.mark.parametrize(("first", "second", "why"), [
    ("You get 10% off today", "10% off tomorrow", "tomorrow"),
    ("$40 for the towels", "$40 for the locker", "for locker"),
    ("You get 10% off now", "Additionally, 10% off at the desk", "Additionally"),
    ("$40 now", "$40 once more", "once more"),
    ("I'll reimburse $40 today", "You'll see $40 on your statement tomorrow", None),
    ("I'll reimburse $40", "You'll receive $40 within 5 days", None),
    ("I'll reimburse $40", "The $40 lands next week", None),
])
def test_the_same_amount_again_is_a_second_promise_only_with_another_occasion_or_object(first, second, why):
    value = float(first.split("$")[1].split()[0]) if "$" in first else 10.0
    start = second.index("$") if "$" in second else second.index("10%")
    assert said_again(second, [(value, start)], [site(value, first)]) == why


@pytest.mark.parametrize(("draft", "foreign"), [
    ("Sure, happy to help! Le reembolsamos $40 hoy mismo.", "Spanish"), ("Alles klar, wir erstatten Ihnen alles.", "German"),
    ("Sure, 全额退款 for you!", "other script"), ("Hi Дмитрий, your pass is ready.", None),
    ("Sure thing, your pass is ready. See you at the gym!", None),
    ("Your $40 reimbursement is on its way. Have a great day — à bientôt!", None), ("De nada! Your $40 is on its way.", None),
])
def test_a_sentence_or_clause_in_another_language_is_found(draft, foreign):
    found = foreign_parts(draft)
    assert (found[0][0] if found else None) == foreign


@pytest.mark.parametrize(("draft", "blocked_too"), [
    ("Sure, happy to help with GM-2231! Le reembolsamos la cuota completa.", True),
    ("Sure thing. Le reembolsamos $40 hoy mismo.", True),
    ("Claro, con gusto le ayudo.", True),  # the turn knows the $90 fee: "le devolvemos la cuota" needs no figure
])
def test_another_language_touching_a_figure_or_a_known_purchase_cannot_be_verified(draft, blocked_too):
    reading, ask = offline_reading(GYM, draft, {"payback"}, KNOWN)
    assert ("payback" in reading.uncertain) is blocked_too and (PAYBACK in ask) is blocked_too  # a model is asked


def test_another_language_with_no_figure_and_no_known_amount_is_read_as_promising_nothing():
    known = {k: v for k, v in KNOWN.items() if k != "membership_fee"}
    reading, ask = offline_reading(GYM, "Claro, con gusto le ayudo.", {"payback"}, known)
    assert "payback" not in reading.uncertain and PAYBACK not in ask


@pytest.mark.parametrize("draft", ["You'll get $30 back on your card.", "Your $30 will be back on your account soon."])
def test_money_coming_back_is_no_share_for_a_percentage_field(draft):
    reading, ask = offline_reading(GYM, draft, {"promo"}, {})
    assert "promo" not in reading.uncertain and ask == []
    assert not blocked(GYM, "promo_cap", draft)


def test_money_off_a_price_is_still_read_for_a_percentage_field():
    assert blocked(GYM, "promo_cap", "I'll knock $30 off your $50 month.")
