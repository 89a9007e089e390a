"""A model's draft in another language than the conversation's is not said: the customer hears the agent's own
words in their language, and the turn's trace says why (focal.enforcement.draft_language). Drafts are scripted at
the provider boundary (the generation model's script, as litellm's mock_response would answer); the cards agent
declares en, es, de and fr with a translation of its texts for each.
"""

from __future__ import annotations

from cards_chat import CardsChat

from focal.models.turn import TurnResult

ENGLISH_DRAFT = "TX-1003 is a charge of $312.00 at Skyline Hotels. Shall I open a dispute for it?"
SPANISH_DRAFT = "TX-1003 es un cargo de $312.00 en Skyline Hotels. ¿Abro una reclamación?"


def _at_confirmation(chat: CardsChat, opening: str, *drafts: str, reads: tuple[dict, ...] = ()) -> TurnResult:
    first = chat.say(opening)
    assert (first.scenario or {}).get("step_id") == "ask_transaction", first.response
    return chat.say("TX-1003", *drafts, reads=reads)


def _language_checks(result: TurnResult) -> list[dict]:
    return [c for c in result.enforcement.get("checks", []) if c["name"] == "language"]


def test_an_english_draft_to_a_spanish_customer_is_replaced_by_the_agents_own_spanish_words():
    chat = CardsChat("es-customer-en-draft")
    retries = chat.agent.enforcement.max_retries
    result = _at_confirmation(chat, "Quiero reclamar un cargo", *[ENGLISH_DRAFT] * (retries + 1))
    assert ENGLISH_DRAFT not in result.response
    # the agent's own words for the step, from its Spanish translation, with the look-up's values
    assert "¿Abro una reclamación?" in result.response and "Skyline Hotels" in result.response, result.response
    checks = _language_checks(result)
    assert checks and not checks[0]["passed"]
    assert "English" in checks[0]["reason"] and "Spanish" in checks[0]["reason"], checks[0]
    assert any(v["rule_id"] == "language" for v in result.enforcement["violations"]), result.enforcement


def test_an_english_draft_to_an_english_customer_passes():
    chat = CardsChat("en-customer-en-draft")
    result = _at_confirmation(chat, "I want to dispute a charge on my card", ENGLISH_DRAFT)
    assert result.response == ENGLISH_DRAFT, result.enforcement
    assert [c["passed"] for c in _language_checks(result)] == [True]


def test_a_spanish_draft_with_an_english_product_name_passes():
    chat = CardsChat("es-draft-product-name")
    # the merchant's name is English: "Skyline Hotels", beside the Spanish words
    result = _at_confirmation(chat, "Quiero reclamar un cargo", SPANISH_DRAFT, reads=({"values": {"outcome_promised": False}},))
    assert result.response == SPANISH_DRAFT, result.enforcement
    assert [c["passed"] for c in _language_checks(result)] == [True], result.enforcement
    assert not any(v["rule_id"] == "language" for v in result.enforcement["violations"]), result.enforcement


def test_a_short_draft_of_an_id_does_not_flip_the_language():
    chat = CardsChat("es-short-id")
    result = _at_confirmation(chat, "Quiero reclamar un cargo", "OK, TX-1003: $312.00.")
    assert [c["passed"] for c in _language_checks(result)] in ([True], []), result.enforcement
    assert not any(v["rule_id"] == "language" for v in result.enforcement["violations"]), result.enforcement
