"""A message's language: ids, amounts, dates, e-mail addresses and links are no words of any language, so a message
made of them reads as the agent's own language whatever that is; short messages that clearly are another language
still read as it; no English message of the example suites gets the language notice."""

from __future__ import annotations

import pytest

from focal.bench.language import suite_messages
from focal.sensing import language

NO_LANGUAGE = ["A1003", "A1003 B2004 C3005", "$75.00", "ORD-12345 €49,99", "12/03/2024 #4471", "SKU 99-1234 x2",
               "c-100@example.com", "+49 30 1234567", "AB-1234-XY 3x 19.99 EUR", "Order A1003, $75",
               "see https://shop.example/de/la/el/los", "ref: DE-das-die-der-4411, A-1 B-2 C-3"]


@pytest.mark.parametrize("agent", ["en", "es", "de", "fr", "it", "pt", "nl"])
@pytest.mark.parametrize("text", NO_LANGUAGE)
def test_ids_and_amounts_never_read_as_a_language(text, agent):
    assert language.foreign(text, [agent]) is None


@pytest.mark.parametrize(("text", "lang"), [
    ("Das tut mir leid.", "de"), ("Hola, quiero saber dónde está mi pedido A1003, por favor", "es"),
    ("Où est ma commande B-2231 ?", "fr"), ("Wo ist meine Bestellung 4471?", "de"),
])
def test_a_message_in_another_language_still_reads_as_it_beside_an_id(text, lang):
    assert language.foreign(text, ["en"]) == lang and language.foreign(text, [lang]) is None


def test_no_english_message_of_the_example_suites_gets_the_language_notice():
    messages = suite_messages()
    assert len(messages) > 100
    assert [m for m in messages if language.foreign(m, ["en"]) is not None] == []


@pytest.mark.parametrize(("text", "expected"), [
    ("Meine E-Mail ist neu", ["meine", "mail", "ist", "neu"]),  # the "e" of E-Mail is no Italian "and"
    ("Pouvez-vous m'aider ?", ["pouvez", "vous", "m", "aider"]),  # a pronoun after a hyphen keeps its language
    ("Y a-t-il un parking ?", ["y", "a", "t", "il", "un", "parking"]),
])
def test_hyphenated_words_keep_their_language_words(text, expected):
    assert language.words(text) == expected
