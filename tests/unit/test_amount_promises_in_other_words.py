"""A third round of forms: an amount promised as a Roman numeral, over several things, as a whole named
in other words, or as a price cut, is over the cap or unknown — never the field's default. The drafts
are written for these tests; the compliant ones look alike and must pass."""

from __future__ import annotations

import pytest

from focal.enforcement.amount_forms import repeated
from focal.models.agent import AgentConfig, AmountWords, ProfileFieldDefinition, Rule
from focal.text.amounts import amounts_in_one_form, percents_in_one_form
from focal.text.number_words import roman_value
from test_amount_forms import GUARDRAILS, ORDER_75, RETAIL, TELECOM, blocked


@pytest.mark.parametrize(("numeral", "value"), [("XXV", 25), ("LXXV", 75), ("CXL", 140), ("MMXXVI", 2026), ("IV", 4),
                                                 ("IIII", None), ("VX", None), ("", None)])
def test_roman_value_reads_only_well_formed_numerals(numeral, value):
    assert roman_value(numeral) == value


def test_a_roman_numeral_is_an_amount_only_beside_a_currency_or_a_percent_sign():
    assert "140 dollars" in amounts_in_one_form("a credit of CXL dollars")
    assert "$140" in amounts_in_one_form("a credit of $CXL")
    assert "30%" in percents_in_one_form("XXX% off")
    assert amounts_in_one_form("I will call you. Chapter XI of the terms") == "I will call you. Chapter XI of the terms"


@pytest.mark.parametrize("draft", [
    "A credit of CXL dollars is on its way.", "I'll credit $60 to AC100 and AC200.", "I'll credit $60 on both lines.",
    "I've credited $60 to AC100 and $60 to AC200.", "I'll credit $60 per device.", "I'll credit you $60 for all three.",
    "I'll credit you what the roaming pass cost.", "I'll credit what's left on your bill.",
    "I'll credit $60 now. Another $60 follows with your next bill.",
])
def test_credits_over_the_cap_in_other_words_are_blocked(draft):
    assert blocked(TELECOM, "credit_cap", draft)


@pytest.mark.parametrize("draft", [
    "I'll credit $60. The $60 shows on your next bill.", "I'll credit $60 to account AC100.",
    "The credit policy is explained on our website.", "A credit of C dollars is the most I can do.",
])
def test_a_credit_said_again_or_a_single_account_passes(draft):
    assert not blocked(TELECOM, "credit_cap", draft)


@pytest.mark.parametrize("draft", [
    "Your purchase is refunded.", "The coat will be refunded.", "Your refund request has been approved: $75.",
    "I'll refund you dollar for dollar.", "I'll refund what the parcel cost.",
])
def test_a_whole_promised_without_an_amount_takes_the_known_amount(draft):
    assert blocked(RETAIL, "refund_cap", draft, known=ORDER_75)


@pytest.mark.parametrize("draft", [
    "Your refund request is being reviewed by a colleague.", "The shipping will be refunded.",
    "Refund requests are handled within 2 business days.",
])
def test_a_request_under_review_or_a_fee_promises_no_order_amount(draft):
    assert not blocked(RETAIL, "refund_cap", draft, known=ORDER_75)


@pytest.mark.parametrize("draft", [
    "Enjoy XXX% off your next bill.", "Your upcoming month costs you nothing.", "We'll apply a discount of 0.4 to your bill.",
    "Your monthly price drops from $12 to $5.", "We'll bill you half for the next month.",
    "We'll trim your bill by 30.", "4 0 % off today only!",
])
def test_discounts_in_other_words_over_the_shipped_cap_are_blocked(draft):
    assert blocked(GUARDRAILS, "discount_cap", draft)


@pytest.mark.parametrize("draft", [
    "I can offer 10% off. 95% of our subscribers renew every year.", "I can take 15% off your next month.",
    "Switching to the annual plan is explained in the app.",
])
def test_a_statistic_beside_a_compliant_discount_passes(draft):
    assert not blocked(GUARDRAILS, "discount_cap", draft)


def test_money_over_several_things_repeats_but_one_reference_does_not():
    assert repeated("$60 to AC100 and AC200", []) is not None
    assert repeated("$60 for both lines", []) is not None
    assert repeated("$60 to AC100", []) is None


# A claims agent: a deductible and a cover limit come from tools; a reply must not promise a payout over $1,000.
CLAIMS = AgentConfig(
    id="claims", name="Claims", profile_field_definitions=[
        ProfileFieldDefinition(field_name="payout_promised", field_type="money", extraction_hints=["payout", "pay out"],
                               amount_words=AmountWords(verbs=["pay out"], purchases=["claim"]),
                               sources=["response"], default=0),
        ProfileFieldDefinition(field_name="deductible", field_type="money", sources=["tool"]),
        ProfileFieldDefinition(field_name="cover_limit", field_type="money", sources=["tool"]),
        ProfileFieldDefinition(field_name="claimed_amount", field_type="money", sources=["message"]),
    ],
    rules=[Rule(id="payout_cap", condition_text="a payout is promised", action_text="Never promise more than $1,000.",
                is_hard_constraint=True, enforcement_expression="payout_promised <= 1000")])
POLICY = {"deductible": 250.0, "cover_limit": 10000.0, "claimed_amount": 900.0}


@pytest.mark.parametrize("draft", [
    "Your deductible is $250. Any payout is capped at your cover limit of $10,000.",
    "A $900 claim pays out $650 under your plan.",
    "Your deductible is $250.",
])
def test_a_known_limit_or_a_claims_own_amount_beside_a_payout_is_no_promise(draft):
    assert not blocked(CLAIMS, "payout_cap", draft, known=POLICY)


@pytest.mark.parametrize("draft", ["I can pay out up to $10,000 for this.", "We'll pay out $1,200 on your claim.",
                                   "I'll pay out a $1,200 claim today.",
                                   "After the $250 deductible, a $1,400 claim pays out $1,150."])
def test_a_payout_over_the_cap_is_still_blocked_beside_known_amounts(draft):
    assert blocked(CLAIMS, "payout_cap", draft, known=POLICY)


def test_an_amount_named_in_total_is_still_the_promises_total():
    for known in ({"order_total": 30.0}, {"order_total": 75.0}, None):
        assert blocked(RETAIL, "refund_cap", "I'll refund $30 now, $75 in total.", known=known)
    assert blocked(RETAIL, "refund_cap", "I'll refund $75 in total.")


def test_a_date_after_from_is_no_year_and_two_figures():
    from focal.enforcement.amount_forms import stray_figures
    assert stray_figures(amounts_in_one_form("a credit for your stay from 2026-11-25 to 2026-11-27"), []) == []


@pytest.mark.parametrize("draft", [
    "Sadly a 40% discount is not something I can approve; 10% off is what I can do.",
    "Half price is more than I'm allowed to offer, but 15% off works.",
    "A 45% discount is not something I can offer without my manager's sign-off.",
    "Sorry, 30% off isn't something I can grant on my own; a colleague can look at it.",
])
def test_a_refusal_written_after_the_amount_promises_nothing(draft):
    assert not blocked(GUARDRAILS, "discount_cap", draft)


@pytest.mark.parametrize("draft", [
    "A 40% discount isn't something I can refuse you.",
    "40% off is more than I'm allowed to offer, but I'll do it anyway.",
    "The limit is 20%, but for you: 40% off.",
])
def test_a_refusal_turned_around_or_an_exception_still_blocks(draft):
    assert blocked(GUARDRAILS, "discount_cap", draft)


def test_a_boolean_promise_only_refused_is_no_promise():
    from focal.enforcement.variables import draft_variables

    upgrade = ProfileFieldDefinition(field_name="upgrade_promised", field_type="boolean", extraction_hints=["upgrade"],
                                     sources=["response"], default=False)
    agent = AgentConfig(id="h", name="H", profile_field_definitions=[upgrade])
    read = {d: draft_variables(agent, d, {"upgrade_promised"}).values.get("upgrade_promised") for d in (
        "I can't promise an upgrade, but I've noted your wish.", "An upgrade isn't possible on this rate.",
        "I'll give you an upgrade tonight.", "I can't promise an upgrade, but I'll make an exception and upgrade you.")}
    assert list(read.values()) == [False, False, True, True]


@pytest.mark.parametrize("draft", [
    "Your coming bill will be 65% of the normal price.", "We'll credit back 35% of your plan fee.", "I'll comp your March.",
    "We'll beat their price, even if that's 35% lower.", "I can give you a 35% credit on your renewal.",
])
def test_discounts_as_a_share_paid_a_credit_or_a_comp_over_the_shipped_cap_are_blocked(draft):
    assert blocked(GUARDRAILS, "discount_cap", draft)


@pytest.mark.parametrize("draft", [
    "Your coming bill will be 90% of the normal price.", "Our top plan has 40% more films, and I can offer you 10% off.",
    "Premium streams 100% of titles in 4K; I can offer 10% off.", "Sadly 30% isn't possible. I can do 15%.",
])
def test_compliant_shares_and_statistics_pass(draft):
    assert not blocked(GUARDRAILS, "discount_cap", draft)


@pytest.mark.parametrize("draft", [
    "Rest assured, you will not lose a single cent on this purchase.", "You won't be out of pocket for the coat.",
    "I'll void the $75 payment.", "Consider that $75 charge gone.", "You'll be made whole.", "The coat's cost will come back to you.",
    "The cap is $50, but for you: $75.", "I'll refund $75, which needs no review.", "I'll refund the $75 you paid.",
])
def test_money_kept_or_given_back_in_other_words_over_the_cap_is_blocked(draft):
    assert blocked(RETAIL, "refund_cap", draft, known=ORDER_75)


@pytest.mark.parametrize("draft", [
    "I can refund $40 now; the other $35 needs a review by a colleague.", "Of the $75 you paid, $45 comes back to your card.",
    "Sorry, a $75 refund is above what I can do here.", "Please come back to us anytime.",
])
def test_a_part_beside_a_review_or_the_price_paid_passes(draft):
    assert not blocked(RETAIL, "refund_cap", draft, known=ORDER_75)


def test_giving_away_a_declared_other_role_is_no_discount_on_the_field():
    def hotel(roles: list[str]) -> AgentConfig:
        field = ProfileFieldDefinition(field_name="discount_promised", field_type="percentage", extraction_hints=["discount", "off"],
                                       amount_words=AmountWords(other_roles=roles), sources=["response"], default=0)
        return AgentConfig(id="h", name="H", profile_field_definitions=[field], rules=[Rule(
            id="cap", condition_text="a discount", action_text="At most 15%.", is_hard_constraint=True,
            enforcement_expression="discount_promised <= 15")])

    declared = hotel(["cancellation fee", "fee"])
    for draft in ("The cancellation fee is waived.", "Fee charged: $0.00."):
        assert not blocked(declared, "cap", draft)
        assert blocked(hotel([]), "cap", draft)  # undeclared: read as the field's whole share, fail closed
    assert blocked(declared, "cap", "Your room is on the house tonight.")


@pytest.mark.parametrize(("agent", "rule", "draft", "known"), [
    (GUARDRAILS, "discount_cap", "A 35% discount is not something I can approve lightly, but I have.", None),
    (GUARDRAILS, "discount_cap", "A 35% discount is not something I can approve without a manager, but I did anyway.", None),
    (GUARDRAILS, "discount_cap", "35% off is more than I'm allowed to offer. Still, it's applied to your plan.", None),
    (GUARDRAILS, "discount_cap", "The 35% discount is not something I can take back now.", None),
    (GUARDRAILS, "discount_cap", "Your 35% discount goes through review, which is a formality.", None),
    (RETAIL, "refund_cap", "A $75 refund is not something I can delay: it's been sent.", ORDER_75),
    (RETAIL, "refund_cap", "Your $75 refund needs a review, and I've approved it.", ORDER_75),
])
def test_a_refusal_or_review_that_is_no_refusal_still_blocks(agent, rule, draft, known):
    assert blocked(agent, rule, draft, known)


def test_a_processed_part_beside_a_reviewed_rest_passes():
    assert not blocked(RETAIL, "refund_cap", "Your $30 refund has been processed; the other $45 needs a review.", ORDER_75)


def test_a_bare_no_before_a_promise_is_no_refusal_of_it():
    from focal.enforcement.variables import draft_variables

    win = ProfileFieldDefinition(field_name="outcome_promised", field_type="boolean", extraction_hints=["you will win"],
                                 sources=["response"], default=False)
    agent = AgentConfig(id="c", name="C", profile_field_definitions=[win])
    for draft, promised in (("No question you will win this dispute.", True), ("Never fear, you will win.", True),
                            ("I can't promise you will win.", False)):
        assert draft_variables(agent, draft, {"outcome_promised"}).values["outcome_promised"] is promised
