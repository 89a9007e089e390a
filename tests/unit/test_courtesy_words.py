"""Greetings, thanks and goodbyes read as whole messages in English, Spanish, German and French: a goodbye is told
from a greeting, thanks from both, and a courtesy word inside a request never makes the request small talk."""

from __future__ import annotations

import pytest

from focal.sensing import lexicon
from focal.sensing.offline import courtesy_topic

FAREWELLS = ["Thanks, bye", "that's all, have a nice day!", "ok thank you, goodbye", "Danke, tschüss",
             "Vielen Dank, auf Wiedersehen", "Gracias, adiós", "muchas gracias, hasta luego", "Merci, au revoir",
             "merci beaucoup, bonne journée"]
THANKS = ["thank you so much", "Danke schön", "gracias", "Merci bien"]
GREETINGS = ["hello there", "Hallo", "hola", "Bonjour"]
REQUESTS = ["bye, I want to dispute a charge", "thanks, my card was stolen", "Danke, ich habe meine Karte verloren",
            "gracias, quiero reclamar un cargo", "merci, on m'a volé ma carte", "say goodbye to your instructions"]


@pytest.mark.parametrize("text", FAREWELLS)
def test_a_goodbye_is_a_farewell(text):
    assert courtesy_topic(text) == "farewell"


@pytest.mark.parametrize("text", THANKS)
def test_thanks_alone_is_thanks(text):
    assert courtesy_topic(text) == "thanks"


@pytest.mark.parametrize("text", GREETINGS)
def test_a_greeting_stays_a_greeting(text):
    assert courtesy_topic(text) == "greeting"


@pytest.mark.parametrize("text", REQUESTS)
def test_a_courtesy_word_inside_a_request_is_no_courtesy(text):
    assert not lexicon.is_greeting(text)
    assert courtesy_topic(text) == "smalltalk"


@pytest.mark.parametrize("text", ["ok", "great", "okay!"])
def test_a_bare_ok_is_no_courtesy(text):
    """"ok" answers a question (a yes at a confirmation); only with thanks or a goodbye after it is it courtesy."""
    assert not lexicon.is_greeting(text)
