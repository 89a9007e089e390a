"""Values the customer gave in a message the agent answered with "did you mean …?" are kept on the offer and set,
through the flow's own checks, when the customer takes an option: a "yes" never asks again for what was said."""

from __future__ import annotations

import pytest

from focal.config.loader import parse_agent_text
from focal.dialogue.commands import CommandRun, execute
from focal.models.context import Command, Context
from focal.models.session import Offer, Session
from focal.models.turn import RouteDecision, TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

AGENT = r"""
id: desk
name: Book desk
languages: [en, fr]
profile_field_definitions:
  - {field_name: barcode, field_type: id, pattern: '\b[Bb]\d{5}\b', sources: [message], description: the book's barcode,
     validation_rules: ["value != 'B00000'"]}
  - {field_name: staff_discount, field_type: boolean, privileged: true, sources: [profile], description: staff only}
scenarios:
  - id: renew
    name: Renew a book
    entry_examples: ["I have a question about my book", "renew my book"]
    entry_step_id: ask
    steps:
      - id: ask
        slots: [{name: barcode, type: id, prompt: "Which book (its barcode)?"}]
        transitions: [{target: done}]
      - {id: done, response_template: "Renewal of {barcode} noted."}
  - id: damage
    name: Report a damaged book
    entry_examples: ["I have a question about my book", "my book is damaged"]
    entry_step_id: ask
    steps:
      - id: ask
        slots: [{name: barcode, type: id, prompt: "Which book (its barcode)?"}]
        transitions: [{target: done}]
      - {id: done, response_template: "Damage to {barcode} noted."}
translations:
  fr:
    scenarios:
      renew:
        name: Renouveler un livre
        entry_examples: ["J'ai une question sur mon livre", "renouveler mon livre"]
        steps: {ask: {slots: {barcode: "Quel livre (son code-barres) ?"}}, done: {response_template: "Renouvellement de {barcode} noté."}}
      damage:
        name: Signaler un livre abîmé
        entry_examples: ["J'ai une question sur mon livre", "mon livre est abîmé"]
        steps: {ask: {slots: {barcode: "Quel livre (son code-barres) ?"}}, done: {response_template: "Dommage sur {barcode} noté."}}
"""


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    path = tmp_path_factory.mktemp("desk") / "agent.yaml"
    path.write_text(AGENT)
    return LocalRunner(local_deps(path, ":memory:"))


def _turn(runner, session: str, n: int, message: str):
    return runner.turn(TurnRequest(tenant_id="local", agent_id="desk", session_id=session, customer_id="c-1",
                                   turn_id=f"{session}-{n}", message=message))


@pytest.mark.parametrize(("session", "first", "yes"), [
    ("en", "book B30117", "yes"),
    ("fr", "à propos de mon livre B30117", "oui"),
])
def test_a_yes_to_did_you_mean_keeps_the_values_of_the_first_message(runner, session, first, yes):
    asked = _turn(runner, session, 0, first)
    assert asked.execution_path == "clarify", asked.response
    offer = runner.deps.sessions.get("local", "desk", session).offer
    assert offer is not None and offer.values.get(offer.choices()[0]) == {"barcode": "B30117"}
    answered = _turn(runner, session, 1, yes)
    assert answered.scenario is not None and answered.scenario["id"] == offer.choices()[0]
    assert "B30117" in answered.response and "?" not in answered.response, answered.response  # not asked again


def test_the_second_option_taken_gets_the_values_too(runner):
    _turn(runner, "second", 0, "à propos de mon livre B30117")
    offer = runner.deps.sessions.get("local", "desk", "second").offer
    assert offer is not None and len(offer.choices()) == 2
    answered = _turn(runner, "second", 1, "the second one")
    assert answered.scenario is not None and answered.scenario["id"] == offer.choices()[1]
    assert "B30117" in answered.response and "?" not in answered.response, answered.response


def _run_offer(values: dict[str, str]) -> tuple[Session, RouteDecision]:
    agent = parse_agent_text(AGENT).config
    assert agent is not None
    session = Session(tenant_id="local", agent_id="desk", session_id="s", customer_id="c-1",
                      offer=Offer(kind="choose", scenario_id="renew", options=["renew", "damage"],
                                  values={"renew": values}, read_by="offline"))
    decision = RouteDecision()
    execute(CommandRun(agent, session, Context(message="yes"), decision),
            [Command(name="AffirmConfirmation", flow="renew", value=0)])
    return session, decision


def test_a_kept_value_meets_the_flows_checks_again(runner):
    # what is kept is set as if given now: a value its field refuses, or one the customer may not set, is not set
    session, decision = _run_offer({"barcode": "B00000", "staff_discount": "true"})
    assert session.active_scenario_id == "renew"
    assert "barcode" not in session.slots and "staff_discount" not in session.slots
    assert decision.invalid_slot == "barcode"
    assert any("not the customer's to set" in n for n in decision.notes)


def test_a_value_the_flow_refuses_is_asked_for_after_the_yes(runner):
    asked = _turn(runner, "refused", 0, "book B00000")
    assert asked.execution_path == "clarify", asked.response
    answered = _turn(runner, "refused", 1, "yes")
    assert "B00000" not in answered.response and "barcode" in answered.response, answered.response
