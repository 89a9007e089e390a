"""The turn's language (focal.sensing.turn_language) among the agent's declared languages, kept for short replies,
and the yes/no/stop words of each language (focal.sensing.reply_words through focal.sensing.lexicon)."""

from __future__ import annotations

import pytest

from focal.sensing import lexicon
from focal.sensing.acts import detect_acts
from focal.sensing.turn_language import read_language

ALL = ["en", "es", "de", "fr"]


@pytest.mark.parametrize(("text", "previous", "expected"), [
    ("Quiero renovar un libro", None, "es"),
    ("Ich möchte mein Buch verlängern", None, "de"),
    ("Je voudrais renouveler un livre", "en", "fr"),
    ("I would like to renew my book", "es", "en"),        # a clear change of language is followed
    ("sí", "en", "es"), ("ja gerne", None, "de"), ("oui", "en", "fr"),  # a reply word only one language has
    ("2", "es", "es"), ("LC204518 y B30117", "fr", "fr"),  # too little to tell: the conversation's language
    ("no", "de", "de"), ("ok", "fr", "fr"),                # shared by several languages: nothing said
    ("Hello", None, "en"),
])
def test_the_message_is_read_among_the_declared_languages(text, previous, expected):
    assert read_language(text, ALL, previous) == expected


def test_an_agent_with_one_language_always_speaks_it_and_an_undeclared_language_is_never_chosen():
    assert read_language("Quiero renovar un libro", ["en"], None) == "en"
    assert read_language("Quiero renovar un libro", ["en", "de"], None) == "en"
    assert read_language("Vorrei rinnovare il mio libro", ALL, "es") == "es"  # Italian is not declared
    assert read_language("hola", ALL, "xx") == "es"


@pytest.mark.parametrize("text", ["sí", "si, por favor", "sí, adelante", "vale", "claro que sí", "ja", "ja, gerne",
                                  "genau", "oui", "oui, d'accord", "d'accord", "bien sûr"])
def test_a_yes_in_each_language_is_a_plain_yes(text):
    assert lexicon.is_affirm(text) and lexicon.plain_affirm(text)
    assert "affirm" in detect_acts(text, None, 0.7)


@pytest.mark.parametrize("text", ["no", "no, gracias", "nein", "nein danke", "non", "non merci", "todavía no",
                                  "noch nicht", "pas maintenant"])
def test_a_no_in_each_language(text):
    assert lexicon.is_deny(text) and not lexicon.is_affirm(text)


@pytest.mark.parametrize("text", ["sí, pero solo la mitad", "ja, aber nur die Hälfte", "oui, mais seulement demain",
                                  "sí, mañana", "quizás", "vielleicht", "peut-être"])
def test_a_yes_taken_back_or_hesitant_is_no_confirmation(text):
    assert "affirm" not in detect_acts(text, None, 0.7)


@pytest.mark.parametrize(("text", "act"), [
    ("olvídalo", "cancel"), ("vergiss es", "cancel"), ("laisse tomber", "cancel"),
    ("hola", "chitchat"), ("muchas gracias", "chitchat"), ("Guten Tag", "chitchat"), ("bonjour", "chitchat"),
])
def test_a_stop_and_a_greeting_in_each_language(text, act):  # a person: by meaning (test_person_request)
    assert act in detect_acts(text, None, 0.7)


@pytest.mark.parametrize("text", ["no problem, go ahead", "yes please", "sure", "yes, cancel booking B-12"])
def test_english_replies_read_as_before(text):
    assert lexicon.is_reply_word(text)
