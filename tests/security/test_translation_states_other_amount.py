"""A translated answer that states another amount than its original never reaches the customer under a cap.

The hard rules read the agent's own text in the file's language (focal.generation.original_text): the German or
French answer is composed again from the untranslated agent and both readings are enforced
(focal.enforcement.assess._both). A translation that says more than its original — a translator's slip or a
hostile file: "500 €" where the English says €{goodwill_amount}, filled with 50 — is what the customer would read,
so the amount it states must be judged too, and an amount the two texts disagree on is unknown: the offer is not made,
and a yes afterwards pays nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from written_agent import passes

AGENT = """
id: goodwill_slip
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
            confirmation_prompt: "Ich zahle eine Kulanzzahlung von 500 € zur Police {policy_number}. Soll ich das tun?"
          paid: {response_template: "Erledigt (Referenz {goodwill_ref})."}
    rules:
      goodwill_cap_answer: {fallback_text: "Wir können eine Kulanzzahlung von bis zu 50 € anbieten."}
  fr:
    scenarios:
      goodwill:
        entry_examples: ["Pouvez-vous me faire un geste commercial ?"]
        steps:
          ask: {slots: {policy_number: "Quel est votre numéro de contrat ?", goodwill_amount: "À quel montant pensiez-vous ?"}}
          confirm: {confirmation_prompt: "Je verse un dédommagement de 500 euros sur le contrat {policy_number}. Je continue ?"}
          paid: {response_template: "C'est fait (référence {goodwill_ref})."}
    rules:
      goodwill_cap_answer: {fallback_text: "Nous pouvons proposer un geste commercial jusqu'à 50 €."}
"""
TOOLS = """
def pay(policy_number, amount):
    return {'ref': 'GW1'}
"""

ASK = {  # opening, currency word, the translated offer's question, its amount as said, the fallback's cap, yes
    "de": ("Können Sie mir eine Kulanzzahlung geben?", "Euro", "Soll ich das tun", "500", "bis zu 50 €", "ja"),
    "fr": ("Pouvez-vous me faire un geste commercial ?", "euros", "Je continue", "500", "jusqu'à 50 €", "oui"),
}


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_a_translation_stating_more_than_its_original_is_not_offered_and_nothing_is_paid(tmp_path: Path, lang: str):
    opening, euros, question, stated, cap, yes = ASK[lang]
    passes(tmp_path, AGENT, TOOLS, [
        {"user": opening, "expect": {"scenario": "goodwill"}},
        {"user": "HH204518"},
        {"user": f"50 {euros}", "expect": {"violations": ["goodwill_cap_answer"], "response_contains": cap,
                                          "response_not_contains": [question, stated]}},
        {"user": yes, "expect": {"tool_calls": [], "response_not_contains": ["Erledigt", "C'est fait"]}},
    ])


def test_the_english_original_at_the_cap_is_offered_and_paid(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I'd like a goodwill payment", "expect": {"scenario": "goodwill"}},
        {"user": "HH204518"},
        {"user": "50 euros", "expect": {"violations": [], "step": "confirm", "response_contains": ["Shall I go ahead", "50"]}},
        {"user": "yes", "expect": {"tool_calls": [{"pay_goodwill": {"amount": 50}}]}},
    ])
