"""Thanks and goodbyes through the real pipeline on the cards example (offline, four languages): a goodbye gets a
goodbye in the customer's language, thanks a "you're welcome", never the scope menu or a clarifying question; a
greeting still gets the agent's own greeting."""

from __future__ import annotations

import pytest
from cards_chat import CardsChat

from focal.models.engine_texts import all_keys

CASES = [("en", "Thanks, bye", "farewell"), ("de", "Danke, tschüss", "farewell"), ("es", "Gracias, adiós", "farewell"),
         ("fr", "Merci, au revoir", "farewell"), ("de", "Vielen Dank", "welcome"), ("fr", "merci beaucoup", "welcome")]


@pytest.mark.parametrize(("lang", "message", "key"), CASES)
def test_a_courtesy_is_answered_in_kind_and_language(lang, message, key):
    result = CardsChat(f"courtesy-{lang}-{key}").say(message)
    assert result.response == all_keys()[key][lang]
    assert [c["name"] for c in result.commands] == ["ChitChat"] and result.scenario is None


def test_after_a_flow_a_goodbye_ends_politely():
    chat = CardsChat("after-flow")
    chat.say("Ich habe meine Karte verloren")
    chat.say("abbrechen")
    result = chat.say("Danke, auf Wiedersehen")
    assert result.response == all_keys()["farewell"]["de"]


def test_a_greeting_still_introduces_the_agent():
    result = CardsChat("hello").say("Hello")
    assert result.response.startswith("Hi, this is Northbank Card Support")


def test_a_goodbye_in_the_middle_of_a_flow_keeps_the_flow_for_their_return():
    chat = CardsChat("mid-flow")
    asked = chat.say("Ich möchte eine Abbuchung reklamieren")
    assert asked.scenario == {"id": "dispute", "step_id": "ask_transaction"}
    leaving = chat.say("Danke, tschüss")
    assert leaving.response == all_keys()["farewell"]["de"]
    assert leaving.scenario == asked.scenario and leaving.tool_calls == []
    back = chat.say("TX-1001")
    assert [c["name"] for c in back.commands] == ["SetSlot"] and back.scenario["id"] == "dispute"

