"""Comparison words are read in the language of the text: "au plus 50 €" (French "at most") restates a limit as
"at most $50" does, and is no English "plus" adding an amount; "plus de 50 €" (French "more than") promises no 50."""

from __future__ import annotations

import pytest

from focal.config.loader import parse_agent_text
from focal.config.validate import semantic_warnings
from focal.enforcement.reading import offline_reading

AGENT = """
id: desk
name: Desk
languages: [fr, en, es, de]
profile_field_definitions:
  - field_name: refund_amount
    field_type: money
    description: The refund an answer promises.
    extraction_hints: [refund, rembourse, erstatte, reembolso]
    sources: [response]
    default: 0
rules:
  - id: refund_cap
    condition_text: The answer promises a refund
    action_text: Never promise a refund above 50 €.
    is_hard_constraint: true
    enforcement_expression: refund_amount <= 50
    fallback_text: A refund above 50 € goes to an adviser.
"""


def _agent():
    agent = parse_agent_text(AGENT).config
    assert agent is not None
    return agent


ENGLISH = "I will refund you at most €50 on this purchase."


@pytest.mark.parametrize("text", [
    "Je vous rembourse au plus 50 € sur cette commande.",
    "Je vous rembourse 50 € au plus sur cette commande.",
    "Ich erstatte Ihnen höchstens 50 € für diese Bestellung.",
    "Le reembolso como máximo 50 € de este pedido.",
    "Je ne rembourse pas plus de 50 € sur cette commande.",
    "Je vous rembourse plus de 50 € sur cette commande.",
])
def test_a_comparison_in_another_language_reads_as_the_same_comparison_in_english(text):
    agent = _agent()
    english, _ = offline_reading(agent, ENGLISH, {"refund_amount"}, model_written=False)
    reading, _ = offline_reading(agent, text, {"refund_amount"}, model_written=False)
    assert "refund_amount" not in reading.values and "refund_amount" not in reading.uncertain, reading
    assert reading.values == english.values and reading.uncertain == english.uncertain


def test_an_amount_added_in_french_is_still_read_as_added():
    # French "plus" before an amount adds, as the English "plus" does: the total is not read
    reading, _ = offline_reading(_agent(), "Je vous rembourse 50 € plus 20 € de frais.", {"refund_amount"},
                                 model_written=False)
    assert "refund_amount" in reading.uncertain


def test_a_promise_in_french_is_still_read():
    reading, _ = offline_reading(_agent(), "Je vous rembourse 80 € sur cette commande.", {"refund_amount"},
                                 model_written=False)
    assert reading.values.get("refund_amount") == 80.0


def test_validate_reads_au_plus_in_a_french_soft_rule_as_a_limit():
    text = AGENT + """  - id: refund_info
    condition_text: How much can you refund?
    action_text: Say the cap.
    response_template: Je vous rembourse au plus 50 € sur cette commande.
"""
    agent = parse_agent_text(text).config
    assert agent is not None
    warnings = [p.message for p in semantic_warnings(agent) if "refund_info" in p.message]
    assert not warnings, warnings
