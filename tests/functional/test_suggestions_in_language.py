"""The suggested replies of a clarification or an out-of-scope answer are the agent's own examples in the customer's
language when its `translations` give them (the cards agent translates its flows' examples into es/de/fr), never its
English examples to a Spanish or French customer."""

from __future__ import annotations

from pathlib import Path

import pytest
from first_turn import first_turn

from focal.wiring import local_deps

CARDS = Path(__file__).resolve().parents[2] / "examples" / "cards" / "agent.yaml"


@pytest.fixture(scope="module")
def deps():
    return local_deps(CARDS, ":memory:")


def _turn(deps, session: str, message: str):
    return first_turn(deps, "cards", session, message)


def _examples(deps, lang: str | None) -> set[str]:
    agent = deps.configs.get_agent("local", "cards")
    if lang is None:
        return {s.entry_examples[0] for s in agent.scenarios}
    return {t.entry_examples[0] for t in agent.translations[lang].scenarios.values() if t.entry_examples}


@pytest.mark.parametrize(("lang", "message"), [
    ("es", "¿Cuál es el horario de la oficina de correos más cercana?"),
    ("fr", "Quelle est la météo à Lyon demain matin ?"),
    ("de", "Wie spät hat die Bäckerei am Sonntag geöffnet?"),
])
def test_a_customer_in_another_language_is_offered_the_agents_examples_in_it(deps, lang, message):
    result = _turn(deps, f"s-{lang}", message)
    assert result.suggested_questions, result.response
    assert set(result.suggested_questions) <= _examples(deps, lang), result.suggested_questions
    assert not set(result.suggested_questions) & _examples(deps, None)


def test_an_english_customer_keeps_the_examples_as_written(deps):
    result = _turn(deps, "s-en", "What's the weather in Lyon tomorrow morning?")
    assert result.suggested_questions and set(result.suggested_questions) <= _examples(deps, None)
