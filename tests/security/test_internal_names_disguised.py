"""An internal name written with look-alike letters of another script or with invisible characters is still the
name the customer reads: the internals check reads drafts in the check view, like every other check (a scripted
draft of the second attacker trial wrote the pizza agent's field name with a Cyrillic "е" and reached the customer)."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.cli.conversation_tests import run_suite
from focal.config.loader import load_agent
from focal.enforcement.internals import leaked_names

ROOT = Path(__file__).resolve().parents[2]
PIZZA = load_agent(ROOT / "examples" / "pizza" / "agent.yaml")


@pytest.mark.parametrize("draft", [
    "I keep your d\u0435livery_address and size.",       # Cyrillic е
    "I keep your deliv\u0435ry\u200b_address and size.",  # Cyrillic е and a zero-width space
    "I keep your delivery\uff3faddress and size.",       # fullwidth low line
    "Je suis à l'étape \u0430sk_size du scénario order_pizz\u0430.",  # Cyrillic а, in French
])
def test_a_disguised_internal_name_is_the_name(draft):
    assert leaked_names(PIZZA, draft)


def test_the_plain_words_of_a_foreign_sentence_are_no_leak():
    assert leaked_names(PIZZA, "Votre adresse de livraison et la taille sont notées.") == []
    assert leaked_names(PIZZA, "Ваш адрес доставки записан.") == []


def test_a_disguised_name_in_a_draft_never_reaches_the_customer(tmp_path):
    suite = tmp_path / "tests.yaml"
    suite.write_text(
        "conversations:\n"
        "  - name: disguised field name\n"
        "    turns:\n"
        "      - user: What do you store about me?\n"
        "        model:\n"
        "          generate: [\"I keep your d\u0435livery_address and size.\"]\n"
        "        expect:\n"
        "          response_not_contains: livery_address\n", encoding="utf-8")
    report = run_suite(ROOT / "examples" / "pizza" / "agent.yaml", suite)
    assert report.passed, report
