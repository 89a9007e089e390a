"""A yes (or a no) with more words at a confirmation: the words are read with the extractors of the values the
question showed. Details that agree confirm; another value is corrected and the question asked again; a
reference to a shown value ("my home address") gets one question about it, quoting the shown value; anything
else confirms nothing. Any slot type, any confirmation step: a room booking here (dates, counts, enums, free
text, a profile fact), a sports-club booking below."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from focal.dialogue.clarify import question_to_ask
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Scenario, Slot, Step
from focal.models.context import Context
from focal.models.session import Session
from focal.sensing.confirmation_reply import DETAIL
from focal.sensing.offline import offline_context
from focal.variables import render

TODAY = date(2026, 5, 1)
FIELDS = [
    ProfileFieldDefinition(field_name="room_type", display_name="Room type", field_type="enum",
                           allowed_values=["single", "double", "suite"], sources=["message"]),
    ProfileFieldDefinition(field_name="nights", display_name="Number of nights", field_type="integer", sources=["message"],
                           extraction_hints=["night", "nights"]),
    ProfileFieldDefinition(field_name="check_in", display_name="Check-in date", field_type="date", sources=["message"]),
    ProfileFieldDefinition(field_name="billing_address", display_name="Billing address", field_type="string",
                           sources=["message"]),
    ProfileFieldDefinition(field_name="loyalty_tier", display_name="Loyalty tier", field_type="string", sources=["tool"]),
]
BOOK = Scenario(id="book", name="Book a room", entry_step_id="details", steps=[
    Step(id="details", slots=[
        Slot(name="room_type", type="enum", prompt="Which room type?"),
        Slot(name="nights", type="integer", prompt="How many nights?"),
        Slot(name="check_in", type="date", prompt="From which date?"),
        Slot(name="billing_address", type="string", prompt="Which billing address?", validation="len(value) >= 10"),
    ], transitions=[{"target": "confirm"}]),
    Step(id="confirm", requires_confirmation=True, confirmation_prompt=(
        "A {room_type} room for {nights} nights from {check_in}, billed to {billing_address} ({loyalty_tier} rate). "
        "Shall I book it?")),
])
AGENT = AgentConfig(id="inn", name="Inn", profile_field_definitions=FIELDS, scenarios=[BOOK])
HELD = {"room_type": "double", "nights": 3, "check_in": "2026-05-04", "billing_address": "1 Main Street, Leeds LS1 4AP"}
QUESTION = ("A double room for 3 nights from 2026-05-04, billed to 1 Main Street, Leeds LS1 4AP (gold rate). "
            "Shall I book it?")


def confirming() -> Session:
    s = Session(tenant_id="t", agent_id="inn", session_id="s", customer_id="c", active_scenario_id="book",
                active_step_id="confirm", flow_state="confirming", slots=dict(HELD), variables={"loyalty_tier": "gold"})
    s.remember("assistant", QUESTION)
    return s


def read(text: str) -> Context:
    return offline_context(AGENT, confirming(), text, [], [], today=TODAY)


def commands(text: str) -> list[tuple[str, Any, Any]]:
    return [(c.name, c.slot, c.value) for c in read(text).commands]


def test_a_plain_yes_still_confirms():
    assert commands("yes") == [("AffirmConfirmation", None, None)]


@pytest.mark.parametrize("text", [
    "yes, 3 nights is right",
    "yes, bill it to 1 Main Street, Leeds LS1 4AP",
    "yes please, the double",
    "sure, from May 4",
])
def test_a_yes_whose_details_agree_with_the_values_shown_confirms(text):
    assert ("AffirmConfirmation", None, None) in commands(text)
    assert not [c for c in commands(text) if c[0] in ("CorrectSlot", "Clarify")]


@pytest.mark.parametrize(("text", "slot", "value"), [
    ("yes, for 4 nights", "nights", 4),
    ("yes but make it a suite", "room_type", "suite"),
    ("yes but change it to 9 Hill Street, York YO1 7HH", "billing_address", "9 Hill Street, York YO1 7HH"),
    ("yes, from May 5", "check_in", "2026-05-05"),
])
def test_a_yes_with_another_value_corrects_it_and_confirms_nothing(text, slot, value):
    found = commands(text)
    assert ("CorrectSlot", slot, value) in found
    assert not any(name == "AffirmConfirmation" for name, _, _ in found)


def test_a_no_with_another_value_corrects_it_instead_of_stopping():
    found = commands("no, it's 9 Hill Street, York YO1 7HH")
    assert ("CorrectSlot", "billing_address", "9 Hill Street, York YO1 7HH") in found
    assert ("DenyConfirmation", None, None) in found


@pytest.mark.parametrize(("text", "slot", "phrase"), [
    ("yes, bill it to my home address", "billing_address", "your home address"),
    ("yes, send the bill to my work address", "billing_address", "your work address"),
    ("yes, the same room type as last time", "room_type", "the same room type"),
    ("yes, at my usual loyalty tier", "loyalty_tier", "your usual loyalty tier"),
])
def test_a_yes_that_refers_to_a_shown_value_asks_about_that_detail(text, slot, phrase):
    found = commands(text)
    assert found == [("Clarify", slot, phrase)]
    detail = read(text).commands[0]
    assert detail.topic == DETAIL


def test_the_detail_question_quotes_the_value_shown():
    detail = read("yes, bill it to my home address")
    question = render(question_to_ask(AGENT, BOOK.steps[1], detail), HELD)
    assert question.startswith("Is your home address 1 Main Street, Leeds LS1 4AP?")
    assert render(question_to_ask(AGENT, BOOK.steps[1], read("yes")), HELD | {"loyalty_tier": "gold"}) == QUESTION


@pytest.mark.parametrize("text", [
    "yes if it's under $200", "yes lol nvm", "yes, but wait until tomorrow", "yes, how much is it?",
    "sure, maybe", "yes, at the silver rate",  # loyalty_tier is the hotel's, not the customer's to change
])
def test_details_that_cannot_be_placed_confirm_nothing(text):
    found = commands(text)
    assert not any(name in ("AffirmConfirmation", "CorrectSlot") for name, _, _ in found), found


def test_a_no_that_leaves_it_as_it_is_is_a_plain_no():
    assert commands("no, leave it as it is") == [("DenyConfirmation", None, None)]
