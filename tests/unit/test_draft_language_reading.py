"""The draft-language check (focal.enforcement.draft_language) on the cards agent's declared languages: a draft that
clearly reads as another language than the turn's is blocked only when the customer's own messages say otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.config.loader import load_agent
from focal.enforcement.draft_language import draft_language

AGENT = Path(__file__).resolve().parents[2] / "examples" / "cards" / "agent.yaml"
GERMAN = "Oh nein, das tut mir sehr leid! Möchten Sie einen Ersatz oder lieber Ihr Geld zurück?"
ENGLISH = "I've blocked the card ending in 1234 and a new one is on its way to you."


@pytest.fixture(scope="module")
def cards():
    return load_agent(AGENT)


def test_a_german_draft_to_a_message_the_sensor_could_not_place_passes(cards):
    # "Mein Paket kam beschädigt an" says too little for the word lists: the turn stayed in the first language
    verdict = draft_language(cards, GERMAN, "en", ["Mein Paket kam beschädigt an"])
    assert verdict.passed and verdict.read_as == "de", verdict


def test_a_german_draft_to_an_english_customer_is_blocked(cards):
    verdict = draft_language(cards, GERMAN, "en", ["My package arrived damaged, what can you do about it?"])
    assert not verdict.passed and "German" in verdict.reason and "English" in verdict.reason


def test_an_english_draft_after_a_short_reply_in_a_spanish_conversation_is_blocked(cards):
    verdict = draft_language(cards, ENGLISH, "es", ["He perdido mi tarjeta, ¿pueden ayudarme?", "1234", "sí"])
    assert not verdict.passed and verdict.read_as == "en"


@pytest.mark.parametrize("draft", ["OK, A1003.", "Vale, TX-1003: 312,00 €.", "Hola Maria!", "Skyline Hotels, $312.00"])
def test_short_drafts_of_ids_amounts_and_names_are_not_read_as_another_language(cards, draft):
    assert draft_language(cards, draft, "es", ["¿Dónde está mi reclamación?"]).passed
