"""A yes (or a no) with more words at a confirmation, in English, Spanish, German and French: the opening yes or no,
the words that carry a shown value ("avec", "con", "mit", "with"), the currency beside an amount and the words that
refuse a value or put a condition on the yes are each language's (focal.sensing.reply_words), and the values are read
with the turn's language's readers. Details that agree confirm; another value is corrected and asked again; a refused
value or a no confirms nothing. The same credit agent and the same cases in each language."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from focal.models.agent import AgentConfig, ProfileFieldDefinition, Scenario, Slot, Step
from focal.models.session import Session
from focal.sensing.locale_reading import reading_in
from focal.sensing.offline import offline_context

TODAY = date(2026, 5, 1)
FIELDS = [
    ProfileFieldDefinition(field_name="account_number", display_name="Account number", field_type="id",
                           pattern=r"\bAC\d{5}\b", sources=["message"]),
    ProfileFieldDefinition(field_name="credit_amount", display_name="Credit amount", field_type="money",
                           sources=["message"]),
]
CREDIT = Scenario(id="credit", name="Credit", entry_step_id="details", steps=[
    Step(id="details", slots=[Slot(name="account_number", type="id", prompt="Which account?"),
                              Slot(name="credit_amount", type="money", prompt="How much?")],
         transitions=[{"target": "confirm"}]),
    Step(id="confirm", requires_confirmation=True,
         confirmation_prompt="I'll credit {credit_amount} euros to account {account_number}. Shall I go ahead?"),
])
AGENT = AgentConfig(id="credits", name="Credits", languages=["en", "es", "de", "fr"], profile_field_definitions=FIELDS,
                    scenarios=[CREDIT])
# the question as each language asks it (its words may be echoed in the answer)
QUESTION = {
    "en": "I'll credit 25.00 euros to account AC12345. Shall I go ahead?",
    "es": "Abonaré 25,00 euros a la cuenta AC12345. ¿Sigo adelante?",
    "de": "Ich schreibe dem Konto AC12345 25,00 Euro gut. Soll ich fortfahren?",
    "fr": "Je crédite 25,00 euros sur le compte AC12345. Je continue ?",
}


def commands(lang: str, text: str) -> list[tuple[str, Any, Any]]:
    session = Session(tenant_id="t", agent_id="credits", session_id="s", customer_id="c", active_scenario_id="credit",
                      active_step_id="confirm", flow_state="confirming",
                      slots={"account_number": "AC12345", "credit_amount": 25.0})
    session.remember("assistant", QUESTION[lang])
    with reading_in(lang):  # as the sensor stage reads the turn
        context = offline_context(AGENT, session, text, [], [], today=TODAY)
    return [(c.name, c.slot, c.value) for c in context.commands]


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "yes, go ahead with 25 euros on AC12345"),
    ("en", "sure, do it with $25 for AC12345"),
    ("es", "sí, adelante con 25 euros en AC12345"),
    ("es", "vale, hazlo con los 25 € para AC12345"),
    ("de", "ja, mach das mit 25 Euro auf AC12345"),
    ("de", "ja gerne, die 25 € für AC12345"),
    ("fr", "oui, allez-y avec 25 euros sur AC12345"),
    ("fr", "d'accord, pour les 25 € sur AC12345"),
])
def test_a_yes_whose_details_agree_confirms_in_each_language(lang, text):
    found = commands(lang, text)
    assert ("AffirmConfirmation", None, None) in found
    assert not [c for c in found if c[0] in ("CorrectSlot", "Clarify")], found


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "yes, go ahead with 40 euros"),
    ("es", "sí, adelante con 40 euros"),
    ("de", "ja, mach das mit 40 Euro"),
    ("fr", "oui, allez-y avec 40 euros"),
])
def test_a_yes_with_another_amount_corrects_it_and_confirms_nothing(lang, text):
    found = commands(lang, text)
    assert ("CorrectSlot", "credit_amount", 40.0) in found
    assert not any(name == "AffirmConfirmation" for name, _, _ in found)


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "yes, but not on AC12345"), ("en", "yes, not with 25 euros"),
    ("es", "sí, pero no en AC12345"), ("es", "sí, sin los 25 euros"),
    ("de", "ja, aber nicht auf AC12345"), ("de", "ja, ohne die 25 Euro"),
    ("fr", "oui mais pas sur AC12345"), ("fr", "oui, sans les 25 euros"),
    # a condition on the yes
    ("en", "yes, with 25 euros if it arrives today"), ("es", "sí, con 25 euros si llega hoy"),
    ("de", "ja, mit 25 Euro, wenn es heute ankommt"), ("fr", "oui, avec 25 euros si ça arrive aujourd'hui"),
    # more words around the agreeing values than carry them
    ("es", "sí, con 25 euros en AC12345 pero llámame mañana primero"),
    ("fr", "oui avec 25 euros, envoyez aussi un courriel à ma sœur"),
])
def test_a_yes_that_refuses_or_conditions_a_shown_value_confirms_nothing(lang, text):
    found = commands(lang, text)
    assert not any(name in ("AffirmConfirmation", "CorrectSlot") for name, _, _ in found), found


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "no, not with 25 euros"),
    ("es", "no, con 25 euros no"),
    ("de", "nein, nicht mit 25 Euro"),
    ("fr", "non, pas avec 25 euros sur AC12345"),
])
def test_a_no_with_the_values_shown_is_a_no(lang, text):
    found = commands(lang, text)
    assert ("DenyConfirmation", None, None) in found
    assert not [c for c in found if c[0] in ("AffirmConfirmation", "CorrectSlot")], found


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "no, make it 40 euros"), ("es", "no, mejor 40 euros"), ("de", "nein, lieber 40 Euro"),
    ("fr", "non, plutôt 40 euros"),
])
def test_a_no_with_another_amount_corrects_it_and_confirms_nothing(lang, text):
    found = commands(lang, text)
    assert ("CorrectSlot", "credit_amount", 40.0) in found
    assert not any(name == "AffirmConfirmation" for name, _, _ in found)
