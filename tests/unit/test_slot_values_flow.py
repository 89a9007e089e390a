"""The offline sensor fills the slot the flow waits for from the plain answer to its prompt."""

from __future__ import annotations

from datetime import date
from typing import Any

from focal.models.agent import AgentConfig, ProfileFieldDefinition, Scenario, Slot, Step
from focal.models.session import Session
from focal.sensing.offline import offline_context
from focal.sensing.slot_reading import awaited_slot

FIELDS = [
    ProfileFieldDefinition(field_name="incident_date", field_type="date", sources=["message"]),
    ProfileFieldDefinition(field_name="damage_type", field_type="enum", allowed_values=["water", "fire", "storm", "other"],
                           sources=["message"]),
    ProfileFieldDefinition(field_name="claimed_amount", field_type="money", sources=["message"],
                           extraction_hints=["cost", "estimate", "quote", "repairs", "damage"]),
]
STEP = Step(id="details", slots=[
    Slot(name="incident_date", type="date", prompt="On what date did the damage happen?"),
    Slot(name="damage_type", type="enum", prompt="What caused the damage?"),
    Slot(name="claimed_amount", type="money", prompt="Roughly how much will the repairs cost?", validation="value > 0"),
])
AGENT = AgentConfig(id="claims", name="Claims", profile_field_definitions=FIELDS,
                    scenarios=[Scenario(id="claim", name="File a claim", steps=[STEP], entry_step_id="details")])
TODAY = date(2025, 3, 10)


def waiting(**slots: Any) -> Session:
    return Session(tenant_id="t", agent_id="claims", session_id="s", customer_id="c", active_scenario_id="claim",
                   active_step_id="details", flow_state="waiting_for_slot", slots=slots)


def set_slots(session: Session, text: str, today: date | None = TODAY) -> dict[str, Any]:
    context = offline_context(AGENT, session, text, [], [], today=today)
    return {c.slot: c.value for c in context.commands if c.name == "SetSlot"}


def test_the_plain_answer_to_a_hinted_money_prompt_fills_it():
    session = waiting(incident_date="2025-03-03", damage_type="storm")
    assert awaited_slot(AGENT, session).name == "claimed_amount"
    for text in ("$1200", "about $1,200", "1200 dollars", "1,200", "1200", "It will cost around $1,200 to fix"):
        assert set_slots(session, text) == {"claimed_amount": 1200.0}, text


def test_an_amount_not_read_exactly_fills_nothing():
    session = waiting(incident_date="2025-03-03", damage_type="storm")
    for text in ("1.2", "$1.2", "between $1,000 and $2,000", "a few hundred", "over $1,000"):
        assert set_slots(session, text) == {}, text
    assert set_slots(session, "$1.2k") == {"claimed_amount": 1200.0}


def test_a_bare_figure_is_no_amount_while_another_slot_is_asked():
    session = waiting()
    assert awaited_slot(AGENT, session).name == "incident_date"
    assert set_slots(session, "1200") == {}
    # a hint word anchors an amount given unasked
    assert set_slots(session, "March 3, 2025, and the repairs will cost $1,200") == {
        "incident_date": "2025-03-03", "claimed_amount": 1200.0}


def test_relative_days_are_read_against_the_turns_date_only():
    session = waiting()
    assert set_slots(session, "yesterday") == {"incident_date": "2025-03-09"}
    assert set_slots(session, "last Tuesday") == {"incident_date": "2025-03-04"}
    assert set_slots(session, "March 3") == {"incident_date": "2025-03-03"}
    assert set_slots(session, "yesterday", today=None) == {}  # no clock given: unknown, never the wall clock
    assert set_slots(session, "March 3", today=None) == {}
    assert set_slots(session, "3/4/2025") == {}  # 4 March or 3 April


def test_a_relative_day_is_no_value_for_a_slot_not_asked():
    session = waiting(incident_date="2025-03-03")
    assert set_slots(session, "I'd like to finish this today") == {}


def test_an_enum_is_read_by_its_values_only():
    # allowed_values carry no synonyms: "a burst pipe" is asked again, never guessed as water
    session = waiting(incident_date="2025-03-03")
    assert set_slots(session, "a burst pipe flooded the bathroom") == {}
    assert set_slots(session, "water") == {"damage_type": "water"}
