"""A model whose drafts keep breaking a rule leaves the customer no worse off than the offline path: the turn's own
offline answer (checked like any draft) before the rule's bare fallback text, so the flow's pending question is still
asked and the customer's yes still acts — as it does with no model (seen live with a small local model, which
promised the outcome of a dispute twice on "will I get my money back?")."""

from __future__ import annotations

import json

from tests.cards_chat import CardsChat

PROMISES = json.dumps({"text": "If you dispute TX-1003 you will get your $312.00 back.",
                       "commitments": {"outcome_promised": True}})
PROMISES_AGAIN = json.dumps({"text": "Don't worry, the dispute will be decided in your favour and refunded.",
                             "commitments": {"outcome_promised": True}})


def _at_confirmation(chat: CardsChat) -> None:
    chat.say("I want to dispute a charge")
    asked = chat.say("TX-1003")
    assert (asked.scenario or {}).get("step_id") == "confirm_dispute", asked.response


def test_drafts_that_keep_breaking_a_rule_get_the_offline_answer_with_its_question():
    offline = CardsChat("offline-outcome")
    _at_confirmation(offline)
    expected = offline.say("will I get my money back?")

    chat = CardsChat("model-outcome")
    _at_confirmation(chat)
    result = chat.say("will I get my money back?", PROMISES, PROMISES_AGAIN)
    assert [v["rule_id"] for v in result.enforcement["violations"]] == ["no_outcome_promise"] * 2
    assert "in your favour" not in result.response and "get your $312.00 back" not in result.response
    assert result.response == expected.response, (result.response, expected.response)
    assert "Shall I open a dispute" in result.response and "30 to 60 days" in result.response
    assert result.enforcement["fallback_used"] is False and result.enforcement["own_words"] is True
    # the question the customer was shown is still open: their yes opens the dispute, as offline
    done = chat.say("yes")
    assert [c["tool_id"] for c in done.tool_calls] == ["open_dispute"], done.response



# Recorded live (Qwen2.5-Coder-1.5B, Spanish, lost card): asked to put "Bloquearé la tarjeta que termina en 5678 y
# pediré una nueva. ¿Sigo adelante?", the model asked only whether the card ends in 5678.
CARD_ONLY = json.dumps({"text": "Entendido. ¿Podrías confirmar que la tarjeta termina en 5678?", "commitments": {}},
                       ensure_ascii=False)


def test_the_question_a_yes_answers_is_the_agents_own_confirmation():
    offline = CardsChat("offline-card-question", customer="c-unverified")
    offline.say("Me dejé la cartera en el autobús")
    asked_offline = offline.say("5678")
    yes_offline = offline.say("sí")

    chat = CardsChat("model-card-question", customer="c-unverified")
    chat.say("Me dejé la cartera en el autobús")
    asked = chat.say("5678", CARD_ONLY)
    assert (asked.scenario or {}).get("step_id") == "confirm_replacement", asked.response
    # the model's statement stays, its question gives way to the agent's, which says what a yes does
    assert asked.response == "Entendido. " + asked_offline.response, asked.response
    assert "¿Podrías confirmar" not in asked.response
    yes = chat.say("sí")
    assert [c["tool_id"] for c in yes.tool_calls] == [c["tool_id"] for c in yes_offline.tool_calls] \
        == ["order_replacement_card"], yes.tool_calls
    assert yes.response == yes_offline.response
