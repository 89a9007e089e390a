"""A bare yes or no answers the question asked: at a confirmation it confirms or declines and is no value of a
boolean slot; it fills a boolean slot only when the flow asks exactly that slot. A yes in the words of the
question ("sure, cancel it" to "Shall I cancel it?") is a yes, not a cancellation."""

from __future__ import annotations

from typing import Any

import pytest

from focal.models.agent import AgentConfig, ProfileFieldDefinition, Scenario, Slot, Step
from focal.models.context import Context
from focal.models.session import Session
from focal.sensing.offline import offline_context

FIELDS = [
    ProfileFieldDefinition(field_name="reservation_id", field_type="id", pattern=r"\bR-\d{3}\b", sources=["message"]),
    ProfileFieldDefinition(field_name="late_checkout", display_name="Late check-out", field_type="boolean",
                           sources=["message"]),
    ProfileFieldDefinition(field_name="add_breakfast", field_type="boolean", sources=["message"],
                           extraction_hints=["breakfast"]),
]
CHANGE = Scenario(id="change", name="Change a reservation", entry_step_id="ask_ref", steps=[
    Step(id="ask_ref", slots=[Slot(name="reservation_id", type="id", prompt="Which reservation?")],
         transitions=[{"target": "ask_extras"}]),
    Step(id="ask_extras", slots=[
        Slot(name="late_checkout", type="boolean", prompt="Would you like a late check-out? Please answer yes or no."),
        Slot(name="add_breakfast", type="boolean", prompt="Shall we add breakfast?"),
    ], transitions=[{"target": "confirm"}]),
    Step(id="confirm", requires_confirmation=True,
         confirmation_prompt="Reservation {reservation_id} (late check-out: {late_checkout}). Shall I change it?"),
])
AGENT = AgentConfig(id="desk", name="Desk", profile_field_definitions=FIELDS, scenarios=[CHANGE])
QUESTION = "Reservation R-123 will be changed (late check-out: no). Shall I change it?"


def session(step: str, state: str, asked: str = "", **slots: Any) -> Session:
    s = Session(tenant_id="t", agent_id="desk", session_id="s", customer_id="c", active_scenario_id="change",
                active_step_id=step, flow_state=state, slots=slots)
    if asked:
        s.remember("assistant", asked)
    return s


def read(s: Session, text: str) -> Context:
    return offline_context(AGENT, s, text, [], [])


def commands(s: Session, text: str) -> list[tuple[str, Any, Any]]:
    return [(c.name, c.slot, c.value) for c in read(s, text).commands]


@pytest.mark.parametrize("text", ["yes", "Yes.", "okay", "yep", "sure", "yes please"])
def test_a_yes_at_a_confirmation_confirms_and_sets_no_boolean(text):
    held = session("confirm", "confirming", QUESTION, reservation_id="R-123", late_checkout=False, add_breakfast=False)
    assert commands(held, text) == [("AffirmConfirmation", None, None)]
    assert "late_checkout" not in read(held, text).extracted_entities
    unheld = session("confirm", "confirming", QUESTION, reservation_id="R-123")
    assert commands(unheld, text) == [("AffirmConfirmation", None, None)]


@pytest.mark.parametrize("text", ["no", "nope", "No."])
def test_a_no_at_a_confirmation_declines_and_sets_no_boolean(text):
    held = session("confirm", "confirming", QUESTION, reservation_id="R-123", late_checkout=True, add_breakfast=True)
    assert commands(held, text) == [("DenyConfirmation", None, None)]
    unheld = session("confirm", "confirming", QUESTION, reservation_id="R-123")
    assert commands(unheld, text) == [("DenyConfirmation", None, None)]


@pytest.mark.parametrize(("text", "value"), [("yes", True), ("sure", True), ("yes, I'd like that", True),
                                             ("no", False), ("nope", False), ("no thank you", False)])
def test_the_answer_to_the_boolean_slots_own_prompt_fills_it(text, value):
    s = session("ask_extras", "waiting_for_slot", "Would you like a late check-out? Please answer yes or no.",
                reservation_id="R-123")
    assert ("SetSlot", "late_checkout", value) in commands(s, text)
    assert all(slot != "add_breakfast" for _, slot, _ in commands(s, text))  # the next slot was not asked


def test_a_yes_after_an_answer_that_asked_nothing_fills_no_boolean():
    """The question was blocked and a fallback text said instead: the customer never saw it, so a yes is no answer."""
    s = session("ask_extras", "waiting_for_slot", "Our front desk can go through the options with you.",
                reservation_id="R-123")
    assert commands(s, "yes") == []
    assert commands(s, "no thanks") == []


def test_a_yes_to_another_prompt_is_no_boolean_value():
    s = session("ask_ref", "waiting_for_slot", "Which reservation?")
    assert commands(s, "yes") == []
    assert commands(s, "yes, R-123") == [("SetSlot", "reservation_id", "R-123")]


@pytest.mark.parametrize(("text", "value"), [("no thanks", False), ("yes please", True), ("sure, breakfast too", True)])
def test_a_boolean_with_hints_takes_a_plain_answer_to_its_own_prompt(text, value):
    s = session("ask_extras", "waiting_for_slot", "Shall we add breakfast?", reservation_id="R-123", late_checkout=True)
    assert commands(s, text) == [("SetSlot", "add_breakfast", value)]


def test_a_yes_answers_a_variable_asked_outside_a_flow():
    idle = Session(tenant_id="t", agent_id="desk", session_id="s", customer_id="c")
    assert "late_checkout" not in read(idle, "yes").extracted_entities
    idle.variables["_resolving"] = {"variable": "late_checkout", "rules": []}
    assert read(idle, "yes").extracted_entities.get("late_checkout") is True


@pytest.mark.parametrize("text", ["sure, cancel it", "yes cancel it", "yeah, go ahead and cancel it", "ok, cancel it please"])
def test_a_yes_in_the_words_of_the_question_is_a_yes_not_a_cancellation(text):
    s = session("confirm", "confirming", "Booking B-42 will be cancelled. Shall I cancel it?", reservation_id="R-123")
    assert commands(s, text) == [("AffirmConfirmation", None, None)]


@pytest.mark.parametrize("text", ["yes stop it", "ok, stop it", "sure, stop the membership"])
def test_another_verb_of_the_question_is_a_yes_too(text):
    s = session("confirm", "confirming", "Shall I stop your membership?", reservation_id="R-123")
    assert commands(s, text) == [("AffirmConfirmation", None, None)]


@pytest.mark.parametrize(("text", "asked"), [
    ("no, cancel it", "Shall I cancel it?"),
    ("cancel it", "Shall I cancel it?"),
    ("yes, but cancel it tomorrow", "Shall I cancel it?"),
    ("sure, cancel it", "Shall I change it?"),  # not the question's verb: a cancellation
    ("no, stop", "Shall I stop your membership?"),
])
def test_a_cancellation_stays_one(text, asked):
    s = session("confirm", "confirming", asked, reservation_id="R-123")
    names = [name for name, _, _ in commands(s, text)]
    assert "AffirmConfirmation" not in names
    assert "CancelFlow" in names or "DenyConfirmation" in names


def test_a_yes_in_the_words_of_the_summary_before_the_question_is_no_yes():
    """Red team: "sure, cancel the refund" to "…any refund goes back to your card. Shall I cancel reservation
    K1NW8N?" cancelled the reservation: words of the summary counted as words of the question."""
    from focal.sensing import lexicon

    asked = lexicon.question_of("Your trip has 2 checked bags and insurance; any refund goes back to your card within "
                                "5 to 7 business days. Shall I cancel reservation K1NW8N?")
    assert asked == "Shall I cancel reservation K1NW8N?"
    for reply in ("sure, cancel the refund", "yes, cancel the insurance", "yes, cancel it within 5 to 7 business days"):
        assert not lexicon.affirm_in_its_words(reply, asked) and not lexicon.plain_affirm(reply, asked)
    assert lexicon.affirm_in_its_words("sure, cancel it", asked)


def test_every_value_of_a_refused_list_is_refused():
    from focal.models.agent import ProfileFieldDefinition
    from focal.sensing.extraction import extract

    reason = ProfileFieldDefinition(field_name="reason", field_type="enum", allowed_values=["illness", "storm", "other"])
    assert extract(reason, "It's not because of illness or a storm, I just changed my mind.", choosing=True) is None
    assert extract(reason, "not the storm, illness", choosing=True) == "illness"
