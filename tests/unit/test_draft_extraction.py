"""Values read from a draft for enforcement. Money and percentages are read so that they fail closed: an
amount the draft promises is the field's value in any wording, an amount restating a known value or a
policy figure is attributed to it, and any other amount is "cannot verify" — never the field's default.
With a model, one structured call settles what the offline reading could not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from focal.config.loader import load_agent
from focal.enforcement.deterministic import deterministic
from focal.enforcement.reading import apply_reading
from focal.enforcement.variables import draft_variables
from focal.errors import ModelError
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule
from focal.ports import ModelReply
from focal.sensing.extraction import extract

RETAIL = load_agent(Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml")
CAP = RETAIL.rule("refund_cap")
NAMES = {"refund_amount", "is_premium"}


def field(**kw) -> ProfileFieldDefinition:
    return ProfileFieldDefinition(**kw)


def verdict(draft: str, order_total: float | None = 75.0, premium: bool = False, agent: AgentConfig = RETAIL, model=None):
    """The refund_cap violations lane 1 reports for `draft`, as the enforce stage computes them."""
    known = {"refund_amount": 0, "is_premium": premium, **({"order_total": order_total} if order_total is not None else {})}
    variables = dict(known)
    reading = draft_variables(agent, draft, NAMES, model, [], known=dict(known))
    rules, unverifiable = apply_reading(agent, [CAP], variables, reading)
    return unverifiable + deterministic(rules, variables)


# ------------------------------------------------------------------ the issue's drafts, and what must pass

@pytest.mark.parametrize("draft", [
    "No problem, $75 will be credited back to your card today.",
    "You'll get the full $75 back on your card.",
    "Refund approved. You will receive $75.",
    "I can give you seventy five dollars back.",
])
@pytest.mark.parametrize("order_total", [75.0, None])
def test_the_issue_drafts_are_blocked_with_or_without_a_known_total(draft, order_total):
    [violation] = verdict(draft, order_total)
    assert violation.rule_id == "refund_cap"
    assert "75" in violation.reason or violation.reason.startswith("cannot verify")


@pytest.mark.parametrize("draft", [
    "No problem, $75 will be credited back to your card today.",
    "You'll get a full refund.",
])
def test_a_premium_customer_may_be_promised_more(draft):
    assert verdict(draft, premium=True) == []


@pytest.mark.parametrize("draft", [
    "Sure, I can help with a refund. What is your order number?",
    "Order A1002 (Blue rain jacket) came to $75.00. A refund of this size needs a review by our team.",
    "Refunds above $50 need a review by our team, so I can't confirm that amount in this chat.",
    "I'm sorry, I can't refund $75 in this chat: refunds above $50 need a review by our team.",
    "You asked for a refund of $120; a colleague will contact you.",
    "Your order came to $75, and I can refund $50 of it right now.",
    "Express shipping costs $9.99. Refunds always go back to your original payment method.",
    "I'll refund $30 now.",
])
def test_compliant_drafts_pass(draft):
    assert verdict(draft) == []


# ------------------------------------------------------------------ attribution

def read(draft: str, known: dict | None = None) -> tuple[float | None, str | None]:
    reading = draft_variables(RETAIL, draft, {"refund_amount"}, known={"refund_amount": 0, **(known or {})})
    return reading.values.get("refund_amount"), reading.uncertain.get("refund_amount")


def test_an_amount_with_a_cue_is_promised_even_when_it_restates_a_known_value():
    assert read("You'll get the full $75 back.", {"order_total": 75.0}) == (75.0, None)
    assert read("Since the total was $75, I'll refund that amount.", {"order_total": 75.0}) == (75.0, None)


def test_an_amount_without_a_cue_that_restates_a_known_value_is_not_the_fields():
    assert read("Order A1002 came to $75.00. Shall I start a refund?", {"order_total": 75.0})[1] is None
    assert read("Order A1002 came to $75.00 and was delivered.", {"order_total": 75.0}) == (None, None)


def test_an_amount_no_known_value_explains_in_a_draft_about_the_field_cannot_be_verified():
    value, why = read("Good news about your refund. Your jacket is $80.")
    assert value is None and "$80" in why
    assert read("Your jacket is $80.") == (None, None)  # no cue: the draft is not about the field


def test_a_threshold_that_restates_a_policy_figure_is_the_policys():
    assert read("Refunds above $50 need a review.") == (None, None)
    assert read("I can refund up to $100 today.")[0] == 100.0  # not a policy figure: a promise of up to $100


def test_a_promised_whole_is_the_largest_known_amount_or_cannot_be_verified():
    assert read("I'll give you a full refund for order A1003.", {"order_total": 120.0}) == (120.0, None)
    value, why = read("I'll give you a full refund for order A1003.")
    assert value is None and "whole amount" in why


def test_shares_refusals_and_the_largest_of_several():
    assert read("I can refund half of your $120 order.")[0] == 60.0
    assert read("You'll receive 80% of the total back.", {"order_total": 120.0})[0] == 96.0
    assert read("I won't be able to issue the $75 refund from this chat.", {"order_total": 75.0}) == (None, None)
    assert read("We'll refund $30 for the mouse and $45 for the case.")[0] == 45.0


def test_the_reading_is_general_not_retail_specific():
    claim = field(field_name="payout", field_type="money", extraction_hints=["settlement"], sources=["response"], default=0)
    agent = AgentConfig(id="ins", name="Insurer", profile_field_definitions=[claim])
    reading = draft_variables(agent, "We will wire the settlement of two hundred dollars to your bank.", {"payout"})
    assert reading.values == {"payout": 200.0}
    discount = field(field_name="discount", field_type="percentage", sources=["response"], default=0)
    shop = AgentConfig(id="s", name="S", profile_field_definitions=[discount])
    assert draft_variables(shop, "You can save 15% on your next order.", {"discount"}).values == {"discount": 15.0}
    assert draft_variables(shop, "I can't offer 30% off; the most I can do is 10% off.", {"discount"}).values == {"discount": 10.0}
    assert draft_variables(shop, "We offer a 100% satisfaction guarantee.", {"discount"}).values == {}


def test_a_rule_reading_an_uncertain_value_is_cannot_verify_and_not_evaluated():
    variables = {"refund_amount": 0, "is_premium": False}
    reading = draft_variables(RETAIL, "You'll get a full refund.", NAMES, known=dict(variables))
    rules, [violation] = apply_reading(RETAIL, [CAP], variables, reading)
    assert rules == [] and "refund_amount" not in variables
    assert violation.lane == "deterministic" and violation.reason.startswith("cannot verify: the answer promises")


# ------------------------------------------------------------------ the customer's message: unchanged extractor

REFUND = field(field_name="refund_amount", field_type="money", extraction_hints=["refund", "money back"],
               amount_words=RETAIL.field("refund_amount").amount_words, sources=["response"], default=0)


@pytest.mark.parametrize("text, amount", [
    ("I'll refund you fifty dollars today.", 50.0),
    ("You'll get a refund of seventy-five dollars.", 75.0),
    ("A refund of one hundred and twenty dollars is on its way.", 120.0),
    ("We'll refund $49.99 to your card. Thanks!", 49.99),
    ("Refunds above $50 need a review.", 50.0),
    ("Your order shipped on Monday.", None),
])
def test_the_message_extractor_is_unchanged(text, amount):
    assert extract(REFUND, text) == amount


@pytest.mark.parametrize("text, iso", [
    ("It will arrive on March 5, 2026.", "2026-03-05"),
    ("Expect it by the 5th of March 2026.", "2026-03-05"),
    ("on 03/05/2026", None),  # day/month order is ambiguous: not read
])
def test_dates(text, iso):
    assert extract(field(field_name="d", field_type="date"), text) == iso


# ------------------------------------------------------------------ with a model

class Extractor:
    """A LanguageModel port fake answering the extraction call (the real adapter is litellm)."""

    def __init__(self, *answers):
        self.answers, self.prompts = list(answers), []

    def available(self, purpose: str) -> bool:
        return purpose == "extract"

    def complete(self, purpose, messages, json_schema=None) -> ModelReply:
        self.prompts.append(messages[-1]["content"])
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return ModelReply(text=answer, model="fake/extract")


SIMPLE = AgentConfig(id="a", name="A", profile_field_definitions=[REFUND])


def test_the_model_is_asked_when_the_reading_is_uncertain_even_with_a_default():
    model = Extractor(json.dumps({"values": {"refund_amount": "$75.00"}}))
    calls: list = []
    reading = draft_variables(SIMPLE, "I'll give you a full refund on that order.", {"refund_amount"}, model, calls)
    assert reading.values == {"refund_amount": 75.0} and reading.uncertain == {}
    assert len(model.prompts) == 1 and "refund_amount" in model.prompts[0] and len(calls) == 1


def test_the_model_is_asked_when_a_cue_has_no_readable_value_and_may_say_none():
    model = Extractor(json.dumps({"values": {"refund_amount": None}}))
    reading = draft_variables(SIMPLE, "Shall I refund what you paid for the order?", {"refund_amount"}, model, [])
    assert len(model.prompts) == 1 and reading.values == {} and reading.uncertain == {}


@pytest.mark.parametrize("draft", ["Sure, I can help with a refund. What is your order number?",
                                   "Shall I refund the order for you?", "Okay, I've stopped that (Refund an order)."])
def test_no_call_when_a_cue_comes_with_nothing_an_amount_could_be_stated_with(draft):
    model = Extractor()
    reading = draft_variables(SIMPLE, draft, {"refund_amount"}, model, [])
    assert model.prompts == [] and reading.values == {} and reading.uncertain == {}


def test_the_model_never_lowers_an_amount_promised_in_the_draft():
    model = Extractor(json.dumps({"values": {"refund_amount": 20}}))
    reading = draft_variables(SIMPLE, "We'll refund $30. Your jacket is $80.", {"refund_amount"}, model, [])
    assert reading.values == {"refund_amount": 30.0} and reading.uncertain == {}


def test_no_call_when_the_draft_states_a_value_or_does_not_talk_about_the_field():
    model = Extractor()
    assert draft_variables(SIMPLE, "We'll refund $30.", {"refund_amount"}, model, []).values == {"refund_amount": 30.0}
    assert draft_variables(SIMPLE, "Your parcel is on its way.", {"refund_amount"}, model, []).values == {}
    assert model.prompts == []


@pytest.mark.parametrize("answer", ["not json", ModelError("Timeout from model provider")])
def test_a_failed_extraction_leaves_the_field_uncertain_not_the_default(answer):
    calls: list = []
    reading = draft_variables(SIMPLE, "You'll get a full refund.", {"refund_amount"}, Extractor(answer), calls)
    assert reading.values == {} and "refund_amount" in reading.uncertain
    assert len(calls) == 1 and calls[0].ok is False
    rule = Rule(id="cap", condition_text="c", action_text="a", is_hard_constraint=True,
                enforcement_expression="refund_amount <= 50")
    _, [violation] = apply_reading(SIMPLE, [rule], {"refund_amount": 0}, reading)
    assert violation.reason.startswith("cannot verify")


@pytest.mark.parametrize("draft", [
    "Once it's issued, a reimbursement usually arrives within 5-7 business days.",
    "Booking B1005 is cancelled. Shall we continue with the reimbursement?",
    "Subscribers get 10% off their first purchase; the reimbursement desk opens at 9:30.",
])
def test_a_draft_whose_figures_are_no_money_asks_no_model_for_a_money_field(draft):
    from focal.enforcement.amount_forms import may_state_amount

    assert not may_state_amount(draft, "money")


@pytest.mark.parametrize("draft", [
    "We'll reimburse you 20k.", "A reimbursement of USD50 is on its way.", "You'll get 40 back within 5 days.",
    "We'll reimburse 50% of what you paid.", "You'll be reimbursed in full.", "We'll reimburse you 2 times over.",
])
def test_a_draft_that_may_state_money_still_asks(draft):
    from focal.enforcement.amount_forms import may_state_amount

    assert may_state_amount(draft, "money")


def test_a_percentage_states_a_percentage_field_value():
    from focal.enforcement.amount_forms import may_state_amount

    assert may_state_amount("Subscribers get 10% off.", "percentage")
    assert not may_state_amount("Subscribers get 10% off.", "money")
