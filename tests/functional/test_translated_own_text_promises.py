"""The agent's own text said in a translation commits to what its original commits to: a confirmation that offers more
than a hard rule allows is blocked in German and French as it is in English, and one within the rule is offered in
each. Found by a newcomer's claims desk (session 10): "I'll pay a goodwill gesture of €80.00" was blocked by the €50
cap, its German translation "Ich zahle eine Kulanzzahlung von 80,00 €. Soll ich das tun?" was offered — the rule's hints
are English words and read nothing in the translation."""

from __future__ import annotations

from pathlib import Path

import pytest
from written_agent import passes

AGENT = """
id: goodwill_desk
name: Goodwill desk
languages: [en, de, fr]
profile_field_definitions:
  - {field_name: policy_number, field_type: id, description: The policy number, pattern: '\\b[Hh][Hh]\\d{6}\\b',
     sources: [message]}
  - {field_name: goodwill_amount, field_type: money, description: The goodwill payment asked for, sources: [message]}
  - {field_name: goodwill_ref, field_type: string, description: The payment's reference, sources: [tool]}
  - {field_name: goodwill_promised, field_type: money, description: The goodwill an answer offers or promises,
     extraction_hints: [goodwill, gesture], sources: [response], default: 0}
tools:
  - id: pay_goodwill
    kind: python
    entrypoint: tools.py:pay
    input: {policy_number: {type: id}, amount: {type: money}}
    arguments: {amount: goodwill_amount}
    output: {ref: goodwill_ref}
    side_effect: true
scenarios:
  - id: goodwill
    name: Goodwill payment
    entry_examples: ["I'd like a goodwill payment", "Can you give me something for the trouble?"]
    entry_step_id: ask
    steps:
      - id: ask
        slots:
          - {name: policy_number, type: id, prompt: "What is your policy number?"}
          - {name: goodwill_amount, type: money, prompt: "What amount did you have in mind?"}
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "I'll pay a goodwill gesture of €{goodwill_amount} on policy {policy_number}. Shall I go ahead?"
        action: [pay_goodwill]
        transitions: [{target: paid}]
      - {id: paid, response_template: "Done (reference {goodwill_ref})."}
rules:
  - id: goodwill_cap_answer
    condition_text: The answer offers or promises a goodwill payment
    action_text: Never offer or promise more than €50 of goodwill.
    is_hard_constraint: true
    enforcement_expression: goodwill_promised <= 50
    fallback_text: We can offer a goodwill gesture of up to €50.
translations:
  de:
    scenarios:
      goodwill:
        entry_examples: ["Können Sie mir eine Kulanzzahlung geben?"]
        steps:
          ask: {slots: {policy_number: "Wie lautet Ihre Versicherungsnummer?", goodwill_amount: "An welchen Betrag haben Sie gedacht?"}}
          confirm:
            confirmation_prompt: "Ich zahle eine Kulanzzahlung von {goodwill_amount} € zur Police {policy_number}. Soll ich das tun?"
          paid: {response_template: "Erledigt (Referenz {goodwill_ref})."}
    rules:
      goodwill_cap_answer: {fallback_text: "Wir können eine Kulanzzahlung von bis zu 50 € anbieten."}
  fr:
    scenarios:
      goodwill:
        entry_examples: ["Pouvez-vous me faire un geste commercial ?"]
        steps:
          ask: {slots: {policy_number: "Quel est votre numéro de contrat ?", goodwill_amount: "À quel montant pensiez-vous ?"}}
          confirm: {confirmation_prompt: "Je verse un dédommagement de {goodwill_amount} € sur le contrat {policy_number}. Je continue ?"}
          paid: {response_template: "C'est fait (référence {goodwill_ref})."}
    rules:
      goodwill_cap_answer: {fallback_text: "Nous pouvons proposer un geste commercial jusqu'à 50 €."}
"""
TOOLS = """
def pay(policy_number, amount):
    return {'ref': 'GW1'}
"""

ASK = {
    "en": ("I'd like a goodwill payment", "euros", "Shall I go ahead", "up to €50", "yes"),
    "de": ("Können Sie mir eine Kulanzzahlung geben?", "Euro", "Soll ich das tun", "bis zu 50 €", "ja"),
    "fr": ("Pouvez-vous me faire un geste commercial ?", "euros", "Je continue", "jusqu'à 50 €", "oui"),
}


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_an_offer_above_the_cap_is_blocked_in_every_language_and_nothing_is_paid(tmp_path: Path, lang: str):
    opening, euros, question, cap, yes = ASK[lang]
    passes(tmp_path, AGENT, TOOLS, [
        {"user": opening, "expect": {"scenario": "goodwill"}},
        {"user": "HH204518"},
        {"user": f"80 {euros}", "expect": {"violations": ["goodwill_cap_answer"], "response_contains": cap,
                                          "response_not_contains": [question, "80"]}},
        {"user": yes, "expect": {"tool_calls": [], "response_not_contains": ["Done", "Erledigt", "C'est fait"]}},
    ])


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_an_offer_within_the_cap_is_offered_and_paid_in_every_language(tmp_path: Path, lang: str):
    opening, euros, question, _, yes = ASK[lang]
    passes(tmp_path, AGENT, TOOLS, [
        {"user": opening, "expect": {"scenario": "goodwill"}},
        {"user": "HH204518"},
        {"user": f"30 {euros}", "expect": {"violations": [], "step": "confirm", "response_contains": [question, "30"]}},
        {"user": yes, "expect": {"tool_calls": [{"pay_goodwill": {"amount": 30}}]}},
    ])
