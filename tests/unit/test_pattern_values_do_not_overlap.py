"""One value, one field, across field patterns: a short pattern matching inside a longer field's value takes
nothing (newcomer finding: a four-digit PIN pattern took "1001" out of the phone number 555-010-1001)."""

from __future__ import annotations

from focal.models.agent import AgentConfig
from focal.sensing.slot_reading import message_entities

AGENT = AgentConfig.model_validate({
    "id": "a", "name": "a",
    "profile_field_definitions": [
        {"field_name": "door_code", "field_type": "string", "pattern": r"\b\d{4}\b", "sources": ["message"]},
        {"field_name": "landline", "field_type": "string", "pattern": r"\b\d{3}-\d{3}-\d{4}\b", "sources": ["message"]},
    ],
})


def test_a_piece_of_a_longer_value_is_not_a_second_value():
    assert message_entities(AGENT, "call me on 212-555-0199") == {"landline": "212-555-0199"}


def test_the_same_digits_written_on_their_own_are_a_value():
    found = message_entities(AGENT, "the code is 0199 and my number is 212-555-0199")
    assert found == {"door_code": "0199", "landline": "212-555-0199"}


def test_a_value_alone_is_read():
    assert message_entities(AGENT, "code 4821 please") == {"door_code": "4821"}
