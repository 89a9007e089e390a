"""A confirmation filled in the customer's language writes its numbers and dates the way that language does
("12 345,50 €", "3 mars 2027"), English as before ("€12,345.50", "2027-03-03"), and the enforce stage reads the filled
answer back with the same values: a hard rule that the answer promise exactly the agreed amount lets it through."""

from __future__ import annotations

import pytest

from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

AGENT = """
id: refunds
name: Refunds
languages: [en, fr, de, es]
profile_field_definitions:
  - {field_name: amount, field_type: money, sources: [message], description: the amount asked for}
  - {field_name: refund_day, field_type: date, sources: [message], description: the day it is paid}
  - field_name: refund_promised
    field_type: money
    description: The amount an answer promises to pay back.
    extraction_hints: [refund, rembourse, erstatte, reembolso]
    sources: [response]
rules:
  - id: promise_as_agreed
    condition_text: The answer promises to pay money back
    action_text: Promise exactly the amount agreed.
    is_hard_constraint: true
    enforcement_expression: refund_promised == amount
    fallback_text: Sorry, I cannot confirm that amount.
scenarios:
  - id: refund
    name: Refund
    entry_examples: ["I want a refund", "refund please"]
    entry_step_id: ask
    steps:
      - id: ask
        slots:
          - {name: amount, type: money, prompt: "How much?"}
          - {name: refund_day, type: date, prompt: "Which day?"}
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "I'll refund you €{amount} on {refund_day}. Shall I go ahead?"
        transitions: [{target: done}]
      - {id: done, response_template: "Done."}
translations:
  fr:
    scenarios:
      refund:
        name: Remboursement
        entry_examples: ["Je veux un remboursement", "remboursez-moi"]
        steps:
          ask: {slots: {amount: "Combien ?", refund_day: "Quel jour ?"}}
          confirm: {confirmation_prompt: "Je vous rembourse {amount} € le {refund_day}. Je confirme ?"}
          done: {response_template: "C'est fait."}
  de:
    scenarios:
      refund:
        name: Erstattung
        entry_examples: ["Ich möchte eine Erstattung", "erstatten Sie mir das Geld"]
        steps:
          ask: {slots: {amount: "Wie viel?", refund_day: "An welchem Tag?"}}
          confirm: {confirmation_prompt: "Ich erstatte Ihnen {amount} € am {refund_day}. Soll ich?"}
          done: {response_template: "Erledigt."}
  es:
    scenarios:
      refund:
        name: Reembolso
        entry_examples: ["Quiero un reembolso", "reembólsenme"]
        steps:
          ask: {slots: {amount: "¿Cuánto?", refund_day: "¿Qué día?"}}
          confirm: {confirmation_prompt: "Le reembolso {amount} € el {refund_day}. ¿Confirmo?"}
          done: {response_template: "Hecho."}
"""


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    path = tmp_path_factory.mktemp("refunds") / "agent.yaml"
    path.write_text(AGENT)
    return LocalRunner(local_deps(path, ":memory:"))


@pytest.mark.parametrize(("lang", "messages", "confirmation"), [
    ("fr", ["Je veux un remboursement", "12 345,50 €", "le 3 mars 2027"],
     "Je vous rembourse 12\u202f345,50 € le 3 mars 2027. Je confirme ?"),
    ("de", ["Ich möchte eine Erstattung", "12.345,50 €", "am 3. März 2027"],
     "Ich erstatte Ihnen 12.345,50 € am 3. März 2027. Soll ich?"),
    ("es", ["Quiero un reembolso", "12.345,50 €", "el 3 de marzo de 2027"],
     "Le reembolso 12.345,50 € el 3 de marzo de 2027. ¿Confirmo?"),
    ("en", ["I want a refund", "€12,345.50", "March 3, 2027"],
     "I'll refund you €12,345.50 on 2027-03-03. Shall I go ahead?"),
])
def test_a_confirmation_shows_numbers_and_dates_in_the_customers_language_and_passes_its_own_check(
        runner, lang, messages, confirmation):
    for n, message in enumerate(messages):
        result = runner.turn(TurnRequest(tenant_id="local", agent_id="refunds", session_id=lang, customer_id="c-1",
                                         turn_id=f"{lang}-{n}", message=message))
    session = runner.deps.sessions.get("local", "refunds", lang)
    assert session.slots == {"amount": 12345.5, "refund_day": "2027-03-03"}
    # said as filled: the enforce stage read the answer's amount back as 12345.5 (the rule holds), nothing replaced it
    assert result.response == confirmation, result.response
    assert result.execution_path == "respond"
