"""A model's passed draft at a confirmation or a finished step keeps the facts the step's own text shows.

A real local model rewording the cards agent's texts in Spanish dropped them: after the transaction look-up found
Skyline Hotels it asked "which transaction?" instead of showing it, and after the replacement card was ordered it
asked again instead of saying the outcome. The customer then hears the step's own text (in the turn's language)
with the values, and the trace says why; a draft that shows the values is kept; a hostile draft at that turn is
judged by enforcement as before. Drafts are scripted through litellm's mock_response (focal.adapters.litellm_model).
"""

from __future__ import annotations

from cards_chat import CardsChat

from focal.models.turn import TurnResult

ASKS_AGAIN = "¿Qué transacción quiere reclamar? Dígame el identificador, por favor."


# what a model reads in a Spanish draft that predicts nothing (the English hints of outcome_promised cannot read it)
PREDICTS_NOTHING = {"values": {"outcome_promised": False}}


def _to_confirmation(chat: CardsChat, *drafts: str, opening: str = "Quiero reclamar un cargo",
                     reads: tuple[dict, ...] = ()) -> TurnResult:
    first = chat.say(opening)
    assert (first.scenario or {}).get("step_id") == "ask_transaction", first.response
    return chat.say("TX-1003", *drafts, reads=reads)


def test_a_confirmation_that_asks_again_for_what_the_lookup_found_is_the_steps_own_text():
    chat = CardsChat("asks-again")
    result = _to_confirmation(chat, ASKS_AGAIN, reads=(PREDICTS_NOTHING,))
    assert [c["tool_id"] for c in result.tool_calls] == ["lookup_transaction"]
    assert (result.scenario or {}).get("step_id") == "confirm_dispute"
    assert result.enforcement["violations"] == [] and result.enforcement["regenerations"] == 0
    assert "Skyline Hotels" in result.response and "312" in result.response, result.response
    assert "¿Abro una reclamación?" in result.response and "Qué transacción" not in result.response
    assert any("left out" in n and "tx_merchant" in n and "own text said instead" in n for n in chat.notes()), chat.notes()
    # the customer's yes answers the question they were shown
    done = chat.say("sí")
    assert [c["tool_id"] for c in done.tool_calls] == ["open_dispute"]


def test_an_outcome_that_asks_again_after_the_action_ran_is_the_steps_own_text():
    chat = CardsChat("outcome")
    chat.say("He perdido mi tarjeta")
    chat.say("termina en 1234")
    result = chat.say("sí", "¿Quiere que bloquee la tarjeta que termina en 1234?")
    assert [c["tool_id"] for c in result.tool_calls] == ["order_replacement_card"]
    assert "va de camino" in result.response and "RC-0001" in result.response, result.response
    assert any("replacement_reference" in n for n in chat.notes()), chat.notes()


def test_a_draft_that_shows_the_values_is_kept_and_asks_the_agents_own_question():
    chat = CardsChat("kept")
    draft = "Veo un cargo de $312.00 en Skyline Hotels (TX-1003). ¿Quiere que abra una reclamación por él?"
    result = _to_confirmation(chat, draft, reads=(PREDICTS_NOTHING,))
    # what the model states is said; the question a yes answers is the step's own (stages/step_values.py)
    assert result.response == "Veo un cargo de $312.00 en Skyline Hotels (TX-1003). ¿Abro una reclamación?", result.response
    assert not any("left out" in n for n in chat.notes()), chat.notes()
    as_own = "Veo un cargo de $312.00 en Skyline Hotels (TX-1003). ¿Abro una reclamación?"
    again = _to_confirmation(CardsChat("kept-own-question"), as_own, reads=(PREDICTS_NOTHING,))
    assert again.response == as_own  # the agent's question after statements that show the values: said as written


def test_a_hostile_draft_at_that_turn_is_still_judged_by_enforcement():
    chat = CardsChat("hostile")
    hostile = ("TX-1003 is a charge of $312.00 at Skyline Hotels. Don't worry, you'll definitely get your money back. "
               "Shall I open a dispute for it?")
    result = _to_confirmation(chat, hostile, opening="I want to dispute a charge")
    assert [v["rule_id"] for v in result.enforcement["violations"]] == ["no_outcome_promise"]
    assert result.enforcement["regenerations"] == 1
    assert "definitely" not in result.response and "can't predict the outcome" in result.response, result.response
    assert not any("left out" in n for n in chat.notes()), chat.notes()
