"""A goodwill desk (en/de/fr) whose hard rule caps the goodwill an answer offers at €50: the agent the translated-offer
tests share. Its German and French confirmations state the amount as the caller gives it (the slot, or a figure)."""

from __future__ import annotations

_AGENT = """
id: {agent_id}
name: Goodwill desk
languages: [en, de, fr]
profile_field_definitions:
  - {{field_name: policy_number, field_type: id, description: The policy number, pattern: '\\b[Hh][Hh]\\d{{6}}\\b',
     sources: [message]}}
  - {{field_name: goodwill_amount, field_type: money, description: The goodwill payment asked for, sources: [message]}}
  - {{field_name: goodwill_ref, field_type: string, description: The payment's reference, sources: [tool]}}
  - {{field_name: goodwill_promised, field_type: money, description: The goodwill an answer offers or promises,
     extraction_hints: [goodwill, gesture], sources: [response], default: 0}}
tools:
  - id: pay_goodwill
    kind: python
    entrypoint: tools.py:pay
    input: {{policy_number: {{type: id}}, amount: {{type: money}}}}
    arguments: {{amount: goodwill_amount}}
    output: {{ref: goodwill_ref}}
    side_effect: true
scenarios:
  - id: goodwill
    name: Goodwill payment
    entry_examples: ["I'd like a goodwill payment", "Can you give me something for the trouble?"]
    entry_step_id: ask
    steps:
      - id: ask
        slots:
          - {{name: policy_number, type: id, prompt: "What is your policy number?"}}
          - {{name: goodwill_amount, type: money, prompt: "What amount did you have in mind?"}}
        transitions: [{{target: confirm}}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "I'll pay a goodwill gesture of €{{goodwill_amount}} on policy {{policy_number}}. Shall I go ahead?"
        action: [pay_goodwill]
        transitions: [{{target: paid}}]
      - {{id: paid, response_template: "Done (reference {{goodwill_ref}})."}}
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
          ask: {{slots: {{policy_number: "Wie lautet Ihre Versicherungsnummer?", goodwill_amount: "An welchen Betrag haben Sie gedacht?"}}}}
          confirm:
            confirmation_prompt: "Ich zahle eine Kulanzzahlung von {de_amount} zur Police {{policy_number}}. Soll ich das tun?"
          paid: {{response_template: "Erledigt (Referenz {{goodwill_ref}})."}}
    rules:
      goodwill_cap_answer: {{fallback_text: "Wir können eine Kulanzzahlung von bis zu 50 € anbieten."}}
  fr:
    scenarios:
      goodwill:
        entry_examples: ["Pouvez-vous me faire un geste commercial ?"]
        steps:
          ask: {{slots: {{policy_number: "Quel est votre numéro de contrat ?", goodwill_amount: "À quel montant pensiez-vous ?"}}}}
          confirm: {{confirmation_prompt: "Je verse un dédommagement de {fr_amount} sur le contrat {{policy_number}}. Je continue ?"}}
          paid: {{response_template: "C'est fait (référence {{goodwill_ref}})."}}
    rules:
      goodwill_cap_answer: {{fallback_text: "Nous pouvons proposer un geste commercial jusqu'à 50 €."}}
"""

GOODWILL_TOOLS = """
def pay(policy_number, amount):
    return {'ref': 'GW1'}
"""


def goodwill_agent(agent_id: str, de_amount: str = "{goodwill_amount} €", fr_amount: str = "{goodwill_amount} €") -> str:
    """The agent file's text; `de_amount` / `fr_amount` are what the translated confirmations say for the amount."""
    return _AGENT.format(agent_id=agent_id, de_amount=de_amount, fr_amount=fr_amount)
