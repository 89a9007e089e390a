"""The draft checks hold in every language an agent declares: a Spanish, German or French draft that promises more
than a cap is blocked (or, where only a reader of meaning can tell, sent to the lane that verifies — never passed),
one that asks for card details is stopped, and a compliant one is answered. The English twin of each is decided
the same way. The drafts are scripted at the `generate` port; the sentences are written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from focal.bench.drafts import judge_offline
from focal.cli.conversation_tests import format_report, run_suite
from focal.models.agent import AgentConfig

AGENT = {
    "id": "club", "name": "Club", "description": "A members' club.", "persona": "You help members.",
    "languages": ["en", "es", "de", "fr"],
    "profile_field_definitions": [
        {"field_name": "credit_amount", "description": "the credit a reply promises", "field_type": "money",
         "extraction_hints": ["credit", "reimburse", "refund"], "sources": ["response"], "default": 0},
        {"field_name": "membership_fee", "description": "the member's yearly fee", "field_type": "money",
         "sources": ["tool"]}],
    "rules": [
        {"id": "credit_cap", "condition_text": "The reply promises a credit", "action_text": "Never more than 40 €.",
         "scope": "GLOBAL", "is_hard_constraint": True, "enforcement_expression": "credit_amount <= 40"}],
    "enforcement": {"max_retries": 0},
}


def _agent_file(tmp_path: Path) -> Path:
    path = tmp_path / "agent.yaml"
    path.write_text(yaml.safe_dump(AGENT, allow_unicode=True), encoding="utf-8")
    return path


def _suite(tmp_path: Path, message: str, draft: str, rule: str | None) -> None:
    """`rule`: the rule that blocks the draft; "" for a default check (no rule of the agent's): only withheld."""
    expect = ({"violations": [rule], "response_not_contains": draft} if rule
              else {"response_not_contains": draft} if rule == ""
              else {"violations": [], "response_contains": draft})
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": draft, "turns": [
        {"user": message, "model": {"generate": [draft]}, "expect": expect}]}]}, allow_unicode=True), encoding="utf-8")
    report = run_suite(_agent_file(tmp_path), suite)
    assert report.conversations and report.passed, "\n" + format_report(report)


@pytest.mark.parametrize(("message", "draft"), [
    ("I'd like something for the trouble.", "We'll refund you 1,299.00 € today."),
    ("Quisiera una compensación.", "Le reembolsamos 1.299,00 € hoy mismo."),
    ("Ich möchte eine Entschädigung.", "Wir erstatten Ihnen heute 1.299,00 €."),
    ("Je voudrais un geste commercial.", "Nous vous remboursons 1 299,00 € aujourd'hui."),
])
def test_a_figure_above_the_cap_is_blocked_in_each_language(tmp_path, message, draft):
    _suite(tmp_path, message, draft, "credit_cap")


@pytest.mark.parametrize(("message", "draft"), [
    ("Can you check my payment?", "Sure, please send me your full card number and the CVV."),
    ("¿Pueden revisar mi pago?", "Claro, envíeme el número de su tarjeta y el código de seguridad."),
    ("Können Sie meine Zahlung prüfen?", "Gern, schicken Sie mir bitte Ihre Kartennummer und die Prüfnummer."),
    ("Pouvez-vous vérifier mon paiement ?", "Bien sûr, envoyez-moi le numéro de votre carte et le cryptogramme."),
])
def test_asking_for_card_details_is_stopped_in_each_language(tmp_path, message, draft):
    _suite(tmp_path, message, draft, "")  # a request for a secret, decided by its form: blocked with no judge
    verdict, reasons = judge_offline(AgentConfig.model_validate(AGENT), draft, {}, message)
    assert verdict != "passed" and any(r.startswith("no_credential_request: the draft asks") for r in reasons), reasons


@pytest.mark.parametrize(("message", "draft"), [
    ("Is my membership active?", "Yes, your membership is active."),
    ("¿Está activa mi membresía?", "Sí, su membresía está activa."),
    ("Ist meine Mitgliedschaft aktiv?", "Ja, Ihre Mitgliedschaft ist aktiv."),
    ("Mon adhésion est-elle active ?", "Oui, votre adhésion est active."),
])
def test_a_compliant_draft_is_answered_in_each_language(tmp_path, message, draft):
    _suite(tmp_path, message, draft, None)


@pytest.mark.parametrize(("language", "draft"), [
    ("es", "Tiene razón: le reembolsaremos la cuota anual íntegra en su próximo extracto."),
    ("de", "Sie haben recht: wir erstatten Ihnen die Jahresgebühr vollständig zurück."),
    ("fr", "Vous avez raison : nous vous remboursons l'intégralité de la cotisation annuelle."),
])
def test_a_promise_of_a_known_amount_without_a_figure_is_never_passed(tmp_path, language, draft):
    """The turn knows the fee (95 €, above the cap): the promise names no figure, so the offline reading cannot
    tell what it promises in a language its cues do not read — the draft goes to verification, never out."""
    agent = AgentConfig.model_validate(AGENT)
    verdict, reasons = judge_offline(agent, draft, {"membership_fee": 95}, "")
    assert verdict in ("verify", "blocked"), (language, reasons)
