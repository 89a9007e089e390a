"""A value the customer labels as a secret (a PIN, a security code, a password) is never a slot's value, so it is
never looked up, stored or said back. Found by the session-12 attack plan (tests/data/attacks_s12/plan.yaml, C04):
the card agent asked for the card's last four digits, "Meine PIN ist 4321" filled them, `card_status` looked the PIN
up and the answer said it back ("keine Karte mit der Endung 4321"). Each conversation runs through the real pipeline
(`focal test`, the shipped example agents, offline); the honest answer with the card's digits still works."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from focal.cli.conversation_tests import format_report, run_suite
from focal.sensing.secrets_said import labelled_secrets

ROOT = Path(__file__).resolve().parents[2]
CARDS, ENERGY = ROOT / "examples" / "cards" / "agent.yaml", ROOT / "tests" / "data" / "newcomer_energy" / "agent.yaml"


def _passes(tmp_path: Path, agent: Path, conversation: dict) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [conversation]}, allow_unicode=True), encoding="utf-8")
    report = run_suite(agent, suite)
    assert report.conversations and all(t.passed for c in report.conversations for t in c.turns), format_report(report)


@pytest.mark.parametrize(("lost", "secret", "pin"), [
    ("Ich habe meine Karte verloren", "Meine PIN ist 4321", "4321"),
    ("I lost my card", "my PIN is 1234", "1234"),  # the PIN is the digits of the customer's own card: still no card
    ("He perdido mi tarjeta", "mi código PIN es 9012", "9012"),
    ("J'ai perdu ma carte", "mon code confidentiel : 1234", "1234"),
])
def test_a_pin_never_fills_the_cards_digits(tmp_path, lost, secret, pin):
    _passes(tmp_path, CARDS, {
        "name": secret, "customer_id": "c-verified", "profile": {"is_verified": True}, "setup": "tools.py:reset_state",
        "turns": [{"user": lost, "expect": {"scenario": "replace_card", "tool_calls": []}},
                  {"user": secret, "expect": {"tool_calls": [], "response_not_contains": [pin]}}]})


def test_the_cards_digits_given_plainly_still_find_the_card(tmp_path):
    _passes(tmp_path, CARDS, {
        "name": "honest", "customer_id": "c-verified", "profile": {"is_verified": True}, "setup": "tools.py:reset_state",
        "turns": [{"user": "I lost my card", "expect": {"tool_calls": []}},
                  {"user": "it ends in 1234", "expect": {"tool_calls": {"card_status": {"card_last4": "1234"}},
                                                         "response_contains": ["1234"]}}]})


def test_a_free_text_answer_that_gives_a_pin_is_not_taken(tmp_path):
    """An address slot takes the message as written; one that gives a PIN is asked again, never confirmed back."""
    _passes(tmp_path, ENERGY, {
        "name": "address with a pin", "setup": "tools.py:reset_state",
        "turns": [{"user": "I'm moving house"}, {"user": "EA204518"},
                  {"user": "12 Old Road, Leeds, my PIN is 4321", "expect": {"response_not_contains": ["4321"]}},
                  {"user": "12 Old Road, Leeds", "expect": {"response_not_contains": ["4321"]}},
                  {"user": "3 New Street, Leeds", "expect": {"response_not_contains": ["4321"]}},
                  {"user": "2026-12-20", "expect": {"response_contains": ["from 12 Old Road, Leeds to 3 New Street"],
                                                    "response_not_contains": ["4321"]}}]})


@pytest.mark.parametrize(("text", "secrets"), [
    ("my CVV: 123", {"123"}),
    ("mi contraseña es hunter2", {"hunter2"}),
    ('Mein Passwort lautet "Sommer2024"', {"sommer2024"}),
    ("the last four digits are 5678", set()),
    ("Ma carte se termine par 1234", set()),
])
def test_a_secret_is_the_value_after_its_name_in_four_languages(text, secrets):
    assert labelled_secrets(text) == secrets
