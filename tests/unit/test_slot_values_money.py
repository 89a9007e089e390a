"""A money slot reads the customer's amount exactly, or not at all (then it is asked again)."""

from __future__ import annotations

import pytest

from focal.models.agent import ProfileFieldDefinition
from focal.sensing.extraction import extract
from focal.sensing.money import message_amount
from focal.text.number_words import number_value

ESTIMATE = ProfileFieldDefinition(field_name="estimate", field_type="money", sources=["message"])
HINTED = ProfileFieldDefinition(field_name="estimate", field_type="money", sources=["message"],
                                extraction_hints=["cost", "estimate", "quote", "repairs", "damage"])


@pytest.mark.parametrize(("text", "amount"), [
    ("$1.2k", 1200.0), ("$1.5k", 1500.0), ("about 3 grand", 3000.0), ("three grand", 3000.0),
    ("$1200", 1200.0), ("about $1,200", 1200.0), ("1200 dollars", 1200.0), ("1200 bucks", 1200.0),
    ("$1,200.50", 1200.5), ("＄１２００", 1200.0), ("120000 cents", 1200.0),
    ("twelve hundred dollars", 1200.0), ("one thousand two hundred dollars", 1200.0), ("1.2k dollars", 1200.0),
    ("It will cost around $1,200 to fix", 1200.0), ("not $1,000 but $1,200", 1200.0), ("$1,200, not $1,000", 1200.0),
])
def test_amounts_with_a_currency_read_as_drafts_read_them(text, amount):
    assert extract(ESTIMATE, text, choosing=True) == amount
    assert extract(ESTIMATE, text, choosing=True, answering=True) == amount


@pytest.mark.parametrize("text", [
    "$1.2", "$1.200", "$1,20", "between $1,000 and $2,000", "$1000-2000", "$1,000 or $1,500", "over $1,000",
    "more than $1,000", "at least $500", "$1,000+", "up to $2k", "$1,200 and my deductible is $500",
    "twelve fifty dollars", "a few hundred dollars", "a couple thousand bucks",
    "1.200,50 €",  # a European figure style in an English turn: read in a German turn only
])
def test_an_amount_that_cannot_be_read_exactly_is_unknown(text):
    assert extract(ESTIMATE, text, choosing=True, answering=True) is None


@pytest.mark.parametrize(("text", "amount"), [
    ("1200", 1200.0), ("1,200", 1200.0), ("about 1200", 1200.0), ("~1,200", 1200.0), ("１２００", 1200.0),
    ("1200.50", 1200.5), ("3k", 3000.0), ("about twelve hundred", 1200.0), ("fifty", 50.0),
    ("1200 for the repairs", 1200.0), ("probably 1200, thanks", 1200.0),
])
def test_a_bare_figure_answering_the_money_prompt_is_that_amount(text, amount):
    assert extract(ESTIMATE, text, choosing=True, answering=True) == amount
    assert extract(ESTIMATE, text, choosing=True) is None  # not asked for: a bare figure is no amount


@pytest.mark.parametrize("text", [
    "1.2", "1.200", "1200?", "is 1200 enough?", "1000 or 2000", "maybe 1000, maybe 2000", "3 days", "2 kids",
    "in 2024", "at least 1000", "number 1200", "#1200", "HP-10001", "2025-03-03", "3/4/2025", "5pm", "10%",
    "the 3rd", "a few hundred", "no one knows", "-1200", "1200 1300",
])
def test_a_bare_figure_that_is_something_else_is_not_an_amount(text):
    assert extract(ESTIMATE, text, choosing=True, answering=True) is None


@pytest.mark.parametrize("text", ["$1200", "about $1,200", "1200 dollars", "1,200", "1200"])
def test_hints_only_help_at_the_fields_own_prompt(text):
    assert extract(HINTED, text, choosing=True, answering=True) == 1200.0


def test_hints_still_anchor_a_value_given_unasked():
    assert extract(HINTED, "$1200", choosing=True) is None  # no hint word: not this field's amount
    assert extract(HINTED, "It happened on Monday. The repairs will cost $1,200.", choosing=True) == 1200.0
    # a hint picks the sentence when the message gives two amounts
    text = "My deductible is $500. The repairs will cost $1,200."
    assert message_amount(text, HINTED.extraction_hints, answering=True) == 1200.0
    assert message_amount(text, [], answering=True) is None


def test_a_drafts_mention_is_read_as_before():
    assert extract(ESTIMATE, "Refunds above $50 need a review.") == 50.0  # not the customer's own value: no exactness rule
    assert extract(ESTIMATE, "A credit of one hundred and twenty dollars") == 120.0


@pytest.mark.parametrize(("words", "value"), [
    ("one thousand two hundred", 1200), ("twelve hundred", 1200), ("twenty-five hundred", 2500), ("a thousand", 1000),
    ("a hundred and ten", 110), ("seventy five", 75), ("three thousand and five", 3005), ("fifty", 50),
    ("twelve fifty", None), ("five six", None), ("hundred", None), ("one hundred and", None), ("nineteen ninety", None),
])
def test_number_words_are_read_only_when_they_write_one_number(words, value):
    assert number_value(words) == value
