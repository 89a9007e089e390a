"""Issue 15's dialogue mechanisms in isolation (the conversations are in the example suites)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from focal.generation.offline import as_example
from focal.models.agent import AgentConfig, Transition
from focal.models.session import Offer
from focal.sensing import language, lexicon, offers


def _agent() -> AgentConfig:
    steps = [{"id": "s", "instructions": "x"}]
    return AgentConfig.model_validate({"id": "a", "name": "A", "scenarios": [
        {"id": "refund", "name": "Refund an order", "entry_step_id": "s", "steps": steps},
        {"id": "status", "name": "Check an order's status", "entry_step_id": "s", "steps": steps},
    ]})


@pytest.mark.parametrize(("text", "acts", "expected"), [
    ("yes", {"affirm": "lexicon"}, 0), ("the second one", {}, 1), ("2", {}, 1), ("option 2 please", {}, 1),
    ("the status one", {}, 1), ("refund", {}, 0), ("no", {"deny": "lexicon"}, None), ("the last", {}, 1),
])
def test_an_offer_is_answered_by_yes_a_number_or_a_name(text, acts, expected):
    offer = Offer(kind="choose", scenario_id="refund", options=["refund", "status"])
    index, how = offers.pick(_agent(), offer, text, acts)
    assert index == expected
    if text == "no":
        assert how == "deny"


def test_an_example_in_a_prompt_is_said_as_an_example():
    assert as_example("What is your order number? It looks like A1001.") == "What is your order number? For example: A1001."


def test_language_is_read_only_when_clear():
    assert language.foreign("Hola, quiero saber dónde está mi pedido, por favor", ["en"]) == "es"
    assert language.foreign("Where is my order A1003, please?", ["en"]) is None
    assert language.foreign("A1003", ["en"]) is None
    assert language.foreign("Hola, quiero saber dónde está mi pedido", ["en", "es"]) is None


@pytest.mark.parametrize(("text", "hypothetical"), [
    ("if I disputed a transaction, would I get my money back?", True),
    ("would I be charged if I cancelled?", True),
    ("If I send you the order number, can you check it?", False),
    ("I want a refund if possible", False),
])
def test_conditional_questions_are_hypothetical(text, hypothetical):
    assert lexicon.is_hypothetical(text) is hypothetical


def test_removed_settings_are_rejected():
    with pytest.raises(ValidationError):
        Transition.model_validate({"target": "x", "condition_text": "never read"})
