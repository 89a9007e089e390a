"""Amounts in the forms a draft can write them, and the figures a reading cannot place, fail closed.

The drafts are written for these tests (a telecom credit, a streaming discount), not taken from the
example suites: each states more than the cap in a form the reader once missed, and the compliant ones
state no promise in forms that look alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.config.loader import load_agent
from focal.enforcement.amount_forms import names_quantity, repeated, stray_figures
from focal.enforcement.deterministic import deterministic
from focal.enforcement.reading import apply_reading
from focal.enforcement.variables import draft_variables
from focal.errors import ModelError
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule
from focal.text.amounts import amounts_in_one_form, percents_in_one_form

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GUARDRAILS = load_agent(EXAMPLES / "guardrails" / "agent.yaml")
CREDIT = ProfileFieldDefinition(field_name="credit_amount", field_type="money", extraction_hints=["credit"],
                                sources=["response"], default=0)
TELECOM = AgentConfig(
    id="telecom", name="Telecom", profile_field_definitions=[CREDIT],
    rules=[Rule(id="credit_cap", condition_text="a credit is promised", action_text="Never promise more than $100.",
                is_hard_constraint=True, enforcement_expression="credit_amount <= 100")])


def blocked(agent: AgentConfig, rule_id: str, draft: str, known: dict | None = None, model=None) -> bool:
    rule = agent.rule(rule_id)
    assert rule is not None
    variables = {f.field_name: f.default for f in agent.profile_field_definitions} | (known or {})
    names = {f.field_name for f in agent.profile_field_definitions}
    reading = draft_variables(agent, draft, names, model, [], known=dict(variables))
    rules, violations = apply_reading(agent, [rule], variables, reading)
    return bool(violations + deterministic(rules, variables))


@pytest.mark.parametrize(("text", "form"), [
    ("a credit of $2.5k", "$2500"), ("3 grand back", "$3000"), ("1.2 million dollars", "1200000 dollars"),
    ("12000 cents", "$120"), ("80€ back", "$80"), ("AUD 90", "$90"), ("90 CHF", "$90"), ("６５ dollars", "65 dollars"),
    ("65,50 € back", "$65.50"), ("**$140**", "$140"), ("1\u200b40 dollars", "140 dollars"),
])
def test_normalise_brings_amounts_to_one_form(text, form):
    assert form in amounts_in_one_form(text)


def test_a_bare_m_is_no_million_without_a_currency():
    assert amounts_in_one_form("the call lasted 5m") == "the call lasted 5m"


@pytest.mark.parametrize(("text", "form"), [
    ("half price on the next bill", "50% off"), ("a third off", "33.33% off"), ("3/10 off", "30% off"),
    ("a 30-percent saving", "30%"), ("30 pc off", "30%"), ("30 percentage points off", "30%"),
    ("you pay only 70% of the list price", "30% off"), ("two months free", "100% off"), ("a fifth off", "20% off"),
    ("a tenth off your stay", "10% off"),
])
def test_normalise_percent_reads_shares_written_other_ways(text, form):
    assert form in percents_in_one_form(text)


def test_feel_free_and_toll_free_are_no_discount():
    assert "%" not in percents_in_one_form("Feel free to call our toll-free line.")


@pytest.mark.parametrize(("text", "found"), [
    ("a credit of 140 on the bill", [140.0]), ("I'll credit you one forty", [140.0]),
    ("a credit of a hundred and ten", [110.0]),
    ("within 3-5 business days", []), ("card 4111 1111 1111 1111", []), ("by March 3, 2026", []),
    ("account 123456", []), ("step 12 of the guide", []), ("one moment please", []),
])
def test_stray_figures_are_figures_without_a_currency_that_no_value_explains(text, found):
    assert stray_figures(amounts_in_one_form(text), []) == found


def test_a_figure_equal_to_an_accounted_value_is_not_stray():
    assert stray_figures("your bill of 140 was paid", [140.0]) == []


@pytest.mark.parametrize("text", ["$40 twice", "3 payments of $30", "$15 a month", "$50 more next week", "3 x $25",
                                  "another $20", "20% off, then 20% off again"])
def test_repeated_promises_are_noticed(text):
    assert repeated(text, []) is not None


def test_a_duration_or_a_declared_rate_is_no_repetition():
    assert repeated("You'll see $30 back within a week.", []) is None
    assert repeated("The plan costs $12 per month.", ["per month"]) is None


def test_names_quantity_finds_an_amount_in_words_but_not_a_payment_method():
    assert names_quantity("we'll send you the cost of the device")
    assert names_quantity("we'll credit you double")
    assert not names_quantity("credits go back to your original payment method")


@pytest.mark.parametrize("draft", [
    "You'll see $1.2k credited on your next bill.", "A credit of 140 has been applied.",
    "I can credit you one forty.", "I've put a 140$ credit on your account.", "I can credit 14000 cents.",
    "A credit of NZD 140 is on its way.", "I'll credit $70 now and another $70 next month.",
    "I'll credit $60 twice.", "You get three credits of $40.", "We'll credit you $30 a month for the next year.",
    "Your bill will be reduced by $140.", "I've waived the $140 fee.", "I'll credit you the cost of the new phone.",
    "$140 is heading your way as a credit.", "I'll credit ＄１４０.",
])
def test_over_the_cap_in_any_form_is_blocked(draft):
    assert blocked(TELECOM, "credit_cap", draft)


@pytest.mark.parametrize("draft", [
    "I've applied a $40 credit; it shows within 2 business days.", "Credits go back to your original payment method.",
    "Your phone order is on its way and arrives by May 4, 2026.", "Feel free to ask about credits anytime.",
    "I can't credit $140 here; a colleague will review it.", "Happy to check for a credit. What's your account number?",
])
def test_compliant_credit_drafts_pass(draft):
    assert not blocked(TELECOM, "credit_cap", draft)


@pytest.mark.parametrize("draft", [
    "Your next month is half price.", "Next month will be 40% cheaper.", "It will cost 35% less than usual.",
    "You pay only 60% of the usual price next month.", "Your next two months are free.", "I can offer 2\u200b5% off.",
    "I can offer a quarter off your next month.", "I can offer 1/4 off.", "I can offer 25％ off.",
    "I can offer 25 pc off.", "I can give you 15% off, and 15% off again next month.",
    "Next month you pay 6 dollars instead of 12.",
])
def test_discounts_over_the_shipped_cap_are_blocked(draft):
    assert blocked(GUARDRAILS, "discount_cap", draft)


@pytest.mark.parametrize("draft", ["I can offer you 15% off your next month.", "Feel free to switch plans at any time.",
                                   "Our plans start at $8 a month."])
def test_discounts_within_the_shipped_cap_pass(draft):
    assert not blocked(GUARDRAILS, "discount_cap", draft)


class _FailingModel:
    def available(self, purpose: str) -> bool:
        return True

    def complete(self, purpose, messages, json_schema=None):
        raise ModelError("provider timeout")


@pytest.mark.parametrize("draft", ["I can credit 140$ today.", "You'll get a credit of 140.",
                                   "I'll credit you the cost of the device."])
def test_a_failed_model_reading_leaves_the_amount_unknown_and_blocked(draft):
    assert blocked(TELECOM, "credit_cap", draft, model=_FailingModel())


@pytest.mark.parametrize("draft", [
    "I've applied a $40 credit. Our store is at 12 Elm Street, Springfield, IL 62701.",
    "I've applied a $40 credit; over 100 stores carry the new phones.", "I've applied a $40 credit. Your case number is 48213.",
    "I can credit $40 (1 x late fee) plus send a new SIM.", "A $40 credit shows on your statement as NMB 1001.",
])
def test_addresses_counts_and_references_beside_a_compliant_credit_pass(draft):
    assert not blocked(TELECOM, "credit_cap", draft)


@pytest.mark.parametrize("draft", [
    "Your next month is half-price.", "Get ¼ off your next month.", "You'll pay just 3/4 of the price next month.",
    "You'll only pay 75% next month.", "Next month is on the house.", "Enjoy a complimentary month.",
    "Buy one month, get one free.", "I can offer 15% off × 2.", "Discount: 15% + 15%.", "A discount of 15%, doubled.",
])
def test_more_discount_forms_over_the_shipped_cap_are_blocked(draft):
    assert blocked(GUARDRAILS, "discount_cap", draft)


@pytest.mark.parametrize("draft", ["I can offer 15% off every month for a year.",
                                   "Annual billing saves you about 16% compared with monthly.",
                                   "Stream on up to 4 devices in 4K, and take 10% off your first month."])
def test_a_rate_is_no_repeated_discount(draft):
    assert not blocked(GUARDRAILS, "discount_cap", draft)


RETAIL = load_agent(EXAMPLES / "retail" / "agent.yaml")
ORDER_75 = {"order_total": 75.0, "order_id": "A1002", "is_premium": False}


@pytest.mark.parametrize("draft", ["Refund approved. Total: $75.", "Your refund is being processed. It came to $75.",
                                   "- Refund: approved\n- Amount: $75", "I'll refund you 3/4 of your order.",
                                   "I'll refund you \u00be of your order."])
def test_a_promise_without_an_amount_beside_a_known_amount_over_the_cap_is_blocked(draft):
    assert blocked(RETAIL, "refund_cap", draft, known=ORDER_75)


@pytest.mark.parametrize("draft", ["Order A1002 came to $75.00. Shall I start a refund?",
                                   "The jacket was $75. Because that's over our chat limit, a colleague will handle the refund."])
def test_a_question_or_a_hand_over_beside_a_known_amount_passes(draft):
    assert not blocked(RETAIL, "refund_cap", draft, known=ORDER_75)
