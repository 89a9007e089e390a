"""One value of a type goes to one slot: with two date slots in one step, a single date answers the slot asked
(never both, never a correction of the other); several dates fill them as written, a date right after a slot's
name or hint going to that slot. The figures of a date are no count."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from focal.models.agent import AgentConfig, ProfileFieldDefinition, Scenario, Slot, Step
from focal.models.context import Command, IntentScore
from focal.models.session import Session
from focal.sensing.offline import offline_context

FIELDS = [
    ProfileFieldDefinition(field_name="pickup_date", display_name="Pick-up date", field_type="date", sources=["message"],
                           extraction_hints=["pick up", "pick it up", "collect", "from"]),
    ProfileFieldDefinition(field_name="return_date", display_name="Return date", field_type="date", sources=["message"],
                           extraction_hints=["return", "bring it back", "drop off", "until", "to"]),
    ProfileFieldDefinition(field_name="drivers", field_type="integer", sources=["message"], extraction_hints=["driver"]),
]
RENT = Scenario(id="rent", name="Rent a van", entry_step_id="when", entry_examples=["rent a van"], steps=[
    Step(id="when", slots=[Slot(name="pickup_date", type="date", prompt="When would you like to pick the van up?"),
                           Slot(name="return_date", type="date", prompt="And when will you bring it back?")],
         transitions=[{"target": "who"}]),
    Step(id="who", slots=[Slot(name="drivers", type="integer", prompt="How many drivers will there be?")],
         transitions=[{"target": "confirm"}]),
    Step(id="confirm", requires_confirmation=True,
         confirmation_prompt="A van from {pickup_date} to {return_date} for {drivers} driver(s). Shall I reserve it?"),
])
AGENT = AgentConfig(id="vans", name="Vans", profile_field_definitions=FIELDS, scenarios=[RENT])
TODAY = date(2026, 11, 24)


def waiting(step: str = "when", **slots: Any) -> Session:
    return Session(tenant_id="t", agent_id="vans", session_id="s", customer_id="c", active_scenario_id="rent",
                   active_step_id=step, flow_state="waiting_for_slot", slots=slots)


def slot_commands(session: Session, text: str, scores: list[IntentScore] | None = None) -> list[tuple[str, Any, Any]]:
    context = offline_context(AGENT, session, text, [], scores or [], today=TODAY)
    return [(c.name, c.slot, c.value) for c in context.commands if c.name in ("SetSlot", "CorrectSlot")]


@pytest.mark.parametrize("text", ["December 9, 2026", "on the 9th of December 2026", "2026-12-09", "December 9"])
def test_one_date_fills_the_first_empty_date_slot_only(text):
    assert slot_commands(waiting(), text) == [("SetSlot", "pickup_date", "2026-12-09")]


@pytest.mark.parametrize("text", ["December 12, 2026", "the 12th of December", "12/12/2026"])
def test_one_date_answers_the_prompt_asked_and_corrects_nothing(text):
    held = waiting(pickup_date="2026-12-09")
    assert slot_commands(held, text) == [("SetSlot", "return_date", "2026-12-12")]


def test_a_relative_day_answers_the_date_slot_asked():
    assert slot_commands(waiting(pickup_date="2026-11-24"), "the day after tomorrow") == [
        ("SetSlot", "return_date", "2026-11-26")]


@pytest.mark.parametrize("text", [
    "from December 9 to December 12, 2026",
    "December 9 until December 12",
    "picking up December 9 and back on December 12",
    "2026-12-09 - 2026-12-12",
    "I'll bring it back December 12, and pick it up on December 9",  # named by the hints, whatever comes first
])
def test_two_dates_fill_both_date_slots(text):
    assert sorted(slot_commands(waiting(), text)) == [
        ("SetSlot", "pickup_date", "2026-12-09"), ("SetSlot", "return_date", "2026-12-12")]


def test_a_date_after_a_slots_hint_goes_to_that_slot():
    assert slot_commands(waiting(), "I can drop off on December 12, 2026") == [("SetSlot", "return_date", "2026-12-12")]
    assert slot_commands(waiting(pickup_date="2026-12-09"), "the return date is December 14") == [
        ("SetSlot", "return_date", "2026-12-14")]


def test_a_correction_that_names_the_slot_corrects_it():
    held = waiting(pickup_date="2026-12-09")
    assert slot_commands(held, "sorry, I meant to pick it up on December 10") == [
        ("CorrectSlot", "pickup_date", "2026-12-10")]


def test_a_bare_date_at_the_confirmation_changes_neither_date():
    confirming = waiting(step="confirm", pickup_date="2026-12-09", return_date="2026-12-12", drivers=1)
    confirming.flow_state = "confirming"
    assert slot_commands(confirming, "no, December 11, 2026") == []


def test_a_flow_started_with_two_dates_takes_both():
    idle = Session(tenant_id="t", agent_id="vans", session_id="s", customer_id="c")
    scores = [IntentScore(scenario_id="rent", label="rent", score=0.95)]
    context = offline_context(AGENT, idle, "I need a van from December 9 to December 12", [], scores, today=TODAY)
    assert [(c.name, c.slot, c.value) for c in context.commands] == [
        ("StartFlow", None, 0.95), ("SetSlot", "pickup_date", "2026-12-09"), ("SetSlot", "return_date", "2026-12-12")]
    one = offline_context(AGENT, idle, "I need a van on December 9, 2026", [], scores, today=TODAY)
    assert [c for c in one.commands if c.name == "SetSlot"] == [
        Command(name="SetSlot", flow="rent", slot="pickup_date", value="2026-12-09")]
    assert "return_date" not in one.extracted_entities  # not the return date for the rest of the turn either


def test_the_figures_of_a_date_are_no_count():
    asked = waiting(step="who", pickup_date="2026-12-09", return_date="2026-12-12")
    assert slot_commands(asked, "December 1, 2026") == []
    assert slot_commands(asked, "2") == [("SetSlot", "drivers", 2)]


def test_a_range_shares_its_year():
    from focal.sensing.dates import read_dates

    assert [v for _, _, v in read_dates("from March 3 to March 5, 2027")] == ["2027-03-03", "2027-03-05"]
    assert [v for _, _, v in read_dates("March 3, 2027 until March 5")] == ["2027-03-03", "2027-03-05"]
    assert [v for _, _, v in read_dates("December 30 to January 2, 2027")] == ["2026-12-30", "2027-01-02"]
    assert read_dates("February 30 to March 2, 2027") is None  # one date that cannot be: none is read


def test_a_slot_named_right_before_a_date_takes_it_whatever_comes_first():
    fields = [ProfileFieldDefinition(field_name="check_in", field_type="date", sources=["message"]),
              ProfileFieldDefinition(field_name="check_out", field_type="date", sources=["message"])]
    stay = Scenario(id="stay", name="Stay", entry_step_id="dates", steps=[Step(id="dates", slots=[
        Slot(name="check_in", type="date", prompt="Arrival?"), Slot(name="check_out", type="date", prompt="Departure?")])])
    agent = AgentConfig(id="inn", name="Inn", profile_field_definitions=fields, scenarios=[stay])
    session = Session(tenant_id="t", agent_id="inn", session_id="s", customer_id="c", active_scenario_id="stay",
                      active_step_id="dates", flow_state="waiting_for_slot")
    text = "we check out on the 5th of January 2027, and check in on December 30, 2026"
    context = offline_context(agent, session, text, [], [], today=TODAY)
    assert sorted((c.slot, c.value) for c in context.commands) == [("check_in", "2026-12-30"), ("check_out", "2027-01-05")]


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("en", "the 9th", [("SetSlot", "return_date", "2026-12-09")]),  # a day of the month alone
    ("en", "day after tomorrow", []),  # read in part: never tomorrow
    ("es", "el 9 de diciembre", [("SetSlot", "return_date", "2026-12-09")]),  # in the conversation's language
    ("es", "el 9", [("SetSlot", "return_date", "2026-12-09")]),
    ("es", "pasado mañana", [("SetSlot", "return_date", "2026-11-26")]),  # CLDR's phrase, read whole: never tomorrow
])
def test_with_two_date_slots_a_date_is_read_whole_in_the_conversations_language(lang, text, expected):
    from focal.sensing.reading_language import reading_in

    agent = AGENT.model_copy(update={"languages": ["en", "es"]})
    session = waiting(pickup_date="2026-11-25").model_copy(update={"language": lang})
    with reading_in(lang):  # as the sensor stage reads the turn
        context = offline_context(agent, session, text, [], [], today=TODAY)
    assert [(c.name, c.slot, c.value) for c in context.commands if c.name in ("SetSlot", "CorrectSlot")] == expected
