"""Values read from a draft for enforcement: typed patterns (amounts written out, dates, percentages,
entities) and, with a model, one structured call for what the patterns could not read."""

from __future__ import annotations

import json

import pytest

from focal.enforcement.variables import draft_variables
from focal.errors import ModelError
from focal.models.agent import AgentConfig, ProfileFieldDefinition
from focal.ports import ModelReply
from focal.sensing.extraction import extract


def field(**kw) -> ProfileFieldDefinition:
    return ProfileFieldDefinition(**kw)


REFUND = field(field_name="refund_amount", field_type="money", extraction_hints=["refund", "money back"],
               sources=["response"], default=0)


@pytest.mark.parametrize("text, amount", [
    ("I'll refund you fifty dollars today.", 50.0),
    ("You'll get a refund of seventy-five dollars.", 75.0),
    ("A refund of one hundred and twenty dollars is on its way.", 120.0),
    ("We'll refund $49.99 to your card. Thanks!", 49.99),
    ("You'll have your money back: 75 USD.", 75.0),
    ("Refunds above $50 need a review.", 50.0),
    ("Your order shipped on Monday.", None),
    ("The total was $75 and we will refund $30.", 75.0),  # both in one refund sentence: the larger
])
def test_money_in_refund_sentences(text, amount):
    assert extract(REFUND, text) == amount


@pytest.mark.parametrize("text, iso", [
    ("It will arrive on March 5, 2026.", "2026-03-05"),
    ("Expect it by the 5th of March 2026.", "2026-03-05"),
    ("Delivery: 2026-03-05", "2026-03-05"),
    ("on Feb 30, 2026", None),
    ("on 03/05/2026", None),  # day/month order is ambiguous: not read
])
def test_dates(text, iso):
    assert extract(field(field_name="d", field_type="date"), text) == iso


def test_percentages_written_out_and_entities_with_possessives():
    assert extract(field(field_name="p", field_type="percentage"), "a twenty percent discount") == 20.0
    names = field(field_name="c", field_type="entity_list", allowed_values=["Amazon", "Best Buy"])
    assert extract(names, "Unlike Amazon's offer, or best buy's...") == ["Amazon", "Best Buy"]


class Extractor:
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


AGENT = AgentConfig(id="a", name="A", profile_field_definitions=[REFUND])


def test_the_model_reads_what_the_patterns_cannot_in_one_call():
    model = Extractor(json.dumps({"values": {"refund_amount": "$75.00"}}))
    calls: list = []
    values = draft_variables(AGENT, "I'll give you a full refund on that order.", {"refund_amount"}, model, calls)
    assert values == {"refund_amount": 75.0}
    assert len(model.prompts) == 1 and "refund_amount" in model.prompts[0] and len(calls) == 1


def test_no_call_when_the_patterns_read_a_value_or_the_draft_does_not_talk_about_it():
    model = Extractor()
    assert draft_variables(AGENT, "We'll refund $30.", {"refund_amount"}, model, []) == {"refund_amount": 30.0}
    assert draft_variables(AGENT, "Your parcel is on its way.", {"refund_amount"}, model, []) == {}
    assert model.prompts == []


@pytest.mark.parametrize("answer", ["not json", ModelError("Timeout from model provider")])
def test_a_failed_extraction_leaves_the_value_to_the_default(answer):
    calls: list = []
    assert draft_variables(AGENT, "You'll get a full refund.", {"refund_amount"}, Extractor(answer), calls) == {}
    assert len(calls) == 1 and calls[0].ok is False
