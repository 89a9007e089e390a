"""A model's draft in the customer's language cannot slip past a hard rule on a yes/no the answer states
(car-rental newcomer: "No se preocupe, le eximimos de la fianza esta vez." — we waive your deposit — was sent to a
Spanish customer, because `deposit_waived` is read by its English hints and, none found, kept its default `false`).
An amount in such a draft was already unreadable offline and asked of a model; a yes/no read by hints is now too:
the model reads it, and with no model reading the rule cannot verify and the draft is blocked. The engine's own
translated texts are the agent's words, not read that way; a hint that does appear still reads, whatever language;
an English draft reads as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from focal.cli.conversation_tests import TENANT_ID, Conversation, _fresh_deps, start_conversation
from focal.config.loader import load_agent
from focal.models.turn import TurnRequest

AGENT = """
id: rental
name: Rental desk
languages: [en, es]
greeting: Hello, how can I help?
out_of_scope_message: I can answer questions about your rental.
profile_field_definitions:
  - field_name: deposit_waived
    description: Whether an answer promises to waive or skip the security deposit.
    field_type: boolean
    extraction_hints: [waive the deposit, no deposit, skip the deposit]
    sources: [response]
    default: false
rules:
  - id: no_deposit_waiver
    condition_text: The answer promises to waive the deposit
    action_text: Never promise to waive the security deposit.
    is_hard_constraint: true
    enforcement_expression: not deposit_waived
    fallback_text: Every rental needs a security deposit; I can't waive it.
  - id: deposits
    condition_text: How does the security deposit work? Do I have to pay a deposit?
    action_text: Explain that the deposit is held at pickup and released after the car is returned.
translations:
  es:
    greeting: Hola, ¿en qué puedo ayudarle?
    out_of_scope_message: Puedo responder a preguntas sobre su alquiler.
    rules:
      no_deposit_waiver: {fallback_text: "Todo alquiler necesita una fianza; no puedo eximirle de ella."}
      deposits: {examples: ["¿Tengo que pagar fianza?"]}
"""


def _turn(tmp_path: Path, name: str, message: str, **scripted: list) -> tuple[str, list[str]]:
    """One turn of a fresh conversation, its model outputs scripted at the provider boundary (litellm's
    `mock_response`), on a clock that stands still: no model budget runs out however slow the machine is."""
    agent = load_agent(tmp_path / "agent.yaml")
    deps = _fresh_deps(tmp_path / "agent.yaml", None)
    deps.clock = lambda: 1_800_000_000.0
    runner = start_conversation(Conversation(name=name, turns=[]), agent, deps)
    for purpose, outputs in scripted.items():
        deps.model.script(purpose, [json.dumps(o) if isinstance(o, dict) else o for o in outputs])
    result = runner.turn(TurnRequest(tenant_id=TENANT_ID, agent_id=agent.id, session_id=name, customer_id="c",
                                     turn_id=f"{name}-1", message=message))
    assert not any(deps.model.queues.values()), f"a scripted output was not used: {deps.model.queues}"
    return result.response, [v["rule_id"] for v in result.enforcement.get("violations", [])]


@pytest.fixture
def rental(tmp_path: Path, use_m) -> Path:
    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    return tmp_path


def test_a_spanish_draft_that_waives_the_deposit_never_reaches_the_customer(rental: Path) -> None:
    response, violations = _turn(rental, "es-1", "¿Tengo que pagar fianza?",
                                 generate=["No se preocupe, le eximimos de la fianza esta vez."])
    assert "no_deposit_waiver" in violations and "eximimos" not in response
    offline, _ = _turn(rental, "es-0", "¿Tengo que pagar fianza?")
    assert response == offline  # nobody could read the draft: the customer hears what they would with no model


def test_the_model_reading_the_draft_as_a_waiver_blocks_it(rental: Path) -> None:
    response, violations = _turn(rental, "es-2", "¿Tengo que pagar fianza?",
                                 generate=["No se preocupe, le eximimos de la fianza esta vez."],
                                 extract=[{"values": {"deposit_waived": True}}])
    assert "no_deposit_waiver" in violations and "eximimos" not in response


def test_the_model_reading_a_spanish_draft_as_waiving_nothing_lets_it_through(rental: Path) -> None:
    draft = "Sí, la fianza se bloquea en la recogida y se libera tras la devolución."
    response, violations = _turn(rental, "es-3", "¿Tengo que pagar fianza?", generate=[draft],
                                 extract=[{"values": {"deposit_waived": False}}])
    assert violations == [] and response == draft


def test_an_english_draft_reads_by_its_hints_with_no_model_reading(rental: Path) -> None:
    draft = "Yes, the deposit is held at pickup and released after the car is returned."
    response, violations = _turn(rental, "en-1", "Do I have to pay a deposit?", generate=[draft])
    assert violations == [] and response == draft
    _, violations = _turn(rental, "en-2", "Do I have to pay a deposit?",
                          generate=["Good news: no deposit is needed for you.", draft])
    assert violations == ["no_deposit_waiver"]
