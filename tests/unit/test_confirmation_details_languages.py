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
from focal.sensing.offline import offline_context
from focal.sensing.reading_language import reading_in

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


# ---------------------------------------------------------------- a free-text value shown: a delivery address

ADDRESS = "5 Lake Road, Leeds LS1 4AP"
MOVE = Scenario(id="move", name="Move", entry_step_id="details", steps=[
    Step(id="details", slots=[Slot(name="order_id", type="id", prompt="Which order?"),
                              Slot(name="delivery_address", type="string", prompt="Which address?",
                                   validation="len(value) >= 10")],
         transitions=[{"target": "confirm"}]),
    Step(id="confirm", requires_confirmation=True,
         confirmation_prompt="Shall I send order {order_id} to {delivery_address}?"),
])
SHOP = AgentConfig(id="shop", name="Shop", languages=["en", "es", "de", "fr"], scenarios=[MOVE], profile_field_definitions=[
    ProfileFieldDefinition(field_name="order_id", display_name="Order", field_type="id", pattern=r"\bA\d{4}\b",
                           sources=["message"]),
    ProfileFieldDefinition(field_name="delivery_address", display_name="Delivery address", field_type="string",
                           sources=["message"]),
])
ASKED = {"en": f"Shall I send order A1004 to {ADDRESS}?", "es": f"¿Envío el pedido A1004 a {ADDRESS}?",
         "de": f"Soll ich die Bestellung A1004 an {ADDRESS} senden?", "fr": f"J'envoie la commande A1004 au {ADDRESS} ?"}


def address_commands(lang: str, text: str) -> list[tuple[str, Any, Any]]:
    session = Session(tenant_id="t", agent_id="shop", session_id="s", customer_id="c", active_scenario_id="move",
                      active_step_id="confirm", flow_state="confirming",
                      slots={"order_id": "A1004", "delivery_address": ADDRESS})
    session.remember("assistant", ASKED[lang])
    with reading_in(lang):
        context = offline_context(SHOP, session, text, [], [], today=TODAY)
    return [(c.name, c.slot, c.value) for c in context.commands]


@pytest.mark.parametrize(("lang", "text"), [
    ("en", f"yes, send it to {ADDRESS}"), ("es", f"sí, envíalo a {ADDRESS}"), ("de", f"ja, schick es an {ADDRESS}"),
    ("fr", f"oui, envoyez-la au {ADDRESS}"),
])
def test_a_yes_with_the_address_shown_confirms(lang, text):
    found = address_commands(lang, text)
    assert ("AffirmConfirmation", None, None) in found
    assert not [c for c in found if c[0] in ("CorrectSlot", "Clarify")], found


@pytest.mark.parametrize(("lang", "text", "address"), [
    ("en", "yes, but send it to 7 Quay Street, York YO1 7HH", "7 Quay Street, York YO1 7HH"),
    ("es", "sí, pero a Calle Luna 3, 28004 Madrid, por favor", "Calle Luna 3, 28004 Madrid"),
    ("de", "ja, aber die Adresse ist Hauptstraße 7, 10115 Berlin", "Hauptstraße 7, 10115 Berlin"),
    ("fr", "oui, mais c'est 3 rue de la Paix, 75002 Paris, merci", "3 rue de la Paix, 75002 Paris"),
])
def test_a_yes_with_another_address_corrects_it_and_confirms_nothing(lang, text, address):
    found = address_commands(lang, text)
    assert ("CorrectSlot", "delivery_address", address) in found
    assert not any(name == "AffirmConfirmation" for name, _, _ in found)


@pytest.mark.parametrize(("lang", "text", "address"), [
    ("en", "no, it's 7 Quay Street, York YO1 7HH", "7 Quay Street, York YO1 7HH"),
    ("es", "no, es Calle Luna 3, 28004 Madrid", "Calle Luna 3, 28004 Madrid"),
    ("de", "nein, es ist Hauptstraße 7, 10115 Berlin", "Hauptstraße 7, 10115 Berlin"),
    ("fr", "non, c'est 3 rue de la Paix, 75002 Paris", "3 rue de la Paix, 75002 Paris"),
])
def test_a_no_with_another_address_corrects_it(lang, text, address):
    found = address_commands(lang, text)
    assert ("CorrectSlot", "delivery_address", address) in found
    assert ("DenyConfirmation", None, None) in found


@pytest.mark.parametrize(("lang", "text", "phrase"), [
    ("en", "yes, send it to my home address", "your home address"),
    ("es", "sí, envíalo a mi dirección de casa", "su dirección de casa"),
    ("de", "ja, schick es an meine Büroadresse", "Ihre Büroadresse"),
    ("fr", "oui, envoyez-la à mon adresse habituelle", "votre adresse habituelle"),
])
def test_a_yes_that_refers_to_the_address_asks_about_it(lang, text, phrase):
    found = [(name, slot, value.replace("\u00a0", " ") if value else value)
             for name, slot, value in address_commands(lang, text)]
    assert found == [("Clarify", "delivery_address", phrase)]


# ---------------------------------------------------------------- a date shown beside a free-text value

STAY = Scenario(id="stay", name="Stay", entry_step_id="details", steps=[
    Step(id="details", slots=[Slot(name="check_in", type="date", prompt="From when?"),
                              Slot(name="billing_address", type="string", prompt="Billed to?",
                                   validation="len(value) >= 10")],
         transitions=[{"target": "confirm"}]),
    Step(id="confirm", requires_confirmation=True,
         confirmation_prompt="A room from {check_in}, billed to {billing_address}. Shall I book it?"),
])
INN = AgentConfig(id="inn", name="Inn", languages=["en", "es", "de", "fr"], scenarios=[STAY], profile_field_definitions=[
    ProfileFieldDefinition(field_name="check_in", display_name="Check-in date", field_type="date", sources=["message"]),
    ProfileFieldDefinition(field_name="billing_address", display_name="Billing address", field_type="string",
                           sources=["message"]),
])


def stay_commands(lang: str, text: str) -> list[tuple[str, Any, Any]]:
    session = Session(tenant_id="t", agent_id="inn", session_id="s", customer_id="c", active_scenario_id="stay",
                      active_step_id="confirm", flow_state="confirming",
                      slots={"check_in": "2026-05-04", "billing_address": ADDRESS})
    session.remember("assistant", f"A room from 2026-05-04, billed to {ADDRESS}. Shall I book it?")
    with reading_in(lang):
        context = offline_context(INN, session, text, [], [], today=TODAY)
    return [(c.name, c.slot, c.value) for c in context.commands]


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "yes, from May 4"), ("es", "sí, a partir del 4 de mayo"), ("de", "ja, ab dem 4. Mai"),
    ("fr", "oui, à partir du 4 mai"),
])
def test_a_yes_with_the_date_shown_confirms_and_leaves_the_address(lang, text):
    found = stay_commands(lang, text)
    assert ("AffirmConfirmation", None, None) in found
    assert not [c for c in found if c[0] in ("CorrectSlot", "Clarify")], found


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "yes, but from May 5"), ("es", "sí, pero a partir del 5 de mayo"), ("de", "ja, aber ab dem 5. Mai"),
    ("fr", "oui, mais à partir du 5 mai"),
])
def test_a_yes_with_another_date_corrects_only_the_date(lang, text):
    found = stay_commands(lang, text)
    assert ("CorrectSlot", "check_in", "2026-05-05") in found
    assert not [c for c in found if c[0] == "AffirmConfirmation" or c[1] == "billing_address"], found
