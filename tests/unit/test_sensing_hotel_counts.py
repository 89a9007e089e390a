"""The answer to "how many people" may count them: "two adults and a child" is 3, "me and my wife" is 2. Only a
message that is a list of people is counted, only at an integer slot whose prompt asks how many people."""

from __future__ import annotations

from typing import Any

import pytest

from focal.models.agent import AgentConfig, ProfileFieldDefinition, Scenario, Slot, Step
from focal.models.session import Session
from focal.sensing.offline import offline_context

FIELDS = [
    ProfileFieldDefinition(field_name="party_size", field_type="integer", sources=["message"], extraction_hints=["people"]),
    ProfileFieldDefinition(field_name="bags", field_type="integer", sources=["message"], extraction_hints=["bags"]),
]
TABLE = Scenario(id="table", name="Reserve a table", entry_step_id="size", steps=[
    Step(id="size", slots=[Slot(name="party_size", type="integer", prompt="How many people will be joining?",
                                validation="value >= 1 and value <= 8")], transitions=[{"target": "luggage"}]),
    Step(id="luggage", slots=[Slot(name="bags", type="integer", prompt="How many bags will you bring?")]),
])
AGENT = AgentConfig(id="bistro", name="Bistro", profile_field_definitions=FIELDS, scenarios=[TABLE])


def set_slots(text: str, step: str = "size", **slots: Any) -> dict[str, Any]:
    session = Session(tenant_id="t", agent_id="bistro", session_id="s", customer_id="c", active_scenario_id="table",
                      active_step_id=step, flow_state="waiting_for_slot", slots=slots)
    return {c.slot: c.value for c in offline_context(AGENT, session, text, [], []).commands if c.name == "SetSlot"}


@pytest.mark.parametrize(("text", "count"), [
    ("two adults and a child", 3),
    ("me and my wife", 2),
    ("my husband and I", 2),
    ("just me", 1),
    ("three adults, two kids and a baby", 6),
    ("me, my partner and our 2 teenagers", 4),
    ("the four of us", 4),
    ("a family of five", 5),
    ("both of us", 2),
    ("me plus two friends", 3),
    ("two", 2),
    ("My parents and me.", 3),
    ("2 adults and 2 children", 4),  # not the first figure
])
def test_people_are_counted_at_a_how_many_people_prompt(text, count):
    assert set_slots(text) == {"party_size": count}


@pytest.mark.parametrize("text", [
    "me and my kids",           # how many kids is not said
    "some friends",
    "two adults and a dog",     # not all people
    "a table by the window",
])
def test_what_does_not_count_people_is_asked_again(text):
    assert set_slots(text) == {}


def test_people_are_no_count_for_another_prompt():
    assert set_slots("two adults and a child", step="luggage", party_size=3) == {}
    assert set_slots("3 bags", step="luggage", party_size=3) == {"bags": 3}
