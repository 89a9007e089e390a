"""An enum value named in the customer's own words: `value_synonyms` (newcomer finding: "a burst pipe
flooded the bathroom" did not fill damage_type = water)."""

from __future__ import annotations

import pytest

from focal.models.agent import ProfileFieldDefinition
from focal.sensing.extraction import extract
from test_validate_newcomer_agent import found, run

DAMAGE = ProfileFieldDefinition(field_name="damage_type", field_type="enum", allowed_values=["water", "fire", "theft"],
                                value_synonyms={"water": ["flood", "flooded", "leak", "burst pipe"],
                                                "theft": ["stolen", "break-in", "broke in"]})


@pytest.mark.parametrize(("message", "value"), [
    ("a burst pipe flooded the bathroom", "water"), ("my laptop was stolen", "theft"), ("fire", "fire"),
    ("it was a fire, not a flood", "fire"), ("the roof", None), ("the pipeline company called", None),
])
def test_a_value_is_read_from_its_synonyms_as_whole_words(message, value):
    assert extract(DAMAGE, message, choosing=True) == value


def test_synonyms_are_validated_against_the_allowed_values(tmp_path):
    incident = "  - {field_name: incident_date, field_type: date, sources: [message]}\n"
    typed = ("  - {field_name: damage_type, field_type: enum, allowed_values: [water, fire], sources: [message],\n"
             "     value_synonyms: {watr: [flood]}}\n")
    result, _, _ = run(tmp_path, (incident, incident + typed))
    [(message, _)] = found(result.problems, "profile_field_definitions[6].value_synonyms.watr")
    assert "'watr' is not one of allowed_values" in message and "did you mean 'water'?" in message

    on_money = "  - {field_name: coverage_limit, field_type: money, sources: [tool]}\n"
    result, _, _ = run(tmp_path, (on_money, on_money.replace("sources: [tool]}", "sources: [tool], value_synonyms: {x: [y]}}")))
    [(message, _)] = found(result.problems, "profile_field_definitions[3].value_synonyms")
    assert "value_synonyms are for enum and entity_list fields" in message

    correct = typed.replace("watr", "water")
    result, _, _ = run(tmp_path, (incident, incident + correct))
    assert not [p for p in result.problems if "value_synonyms" in p.path]


@pytest.mark.parametrize(("raw", "value"), [("Water", "water"), ("flood", "water"), (" Burst  pipe ", "water"),
                                            ("presidential suite", None), ("", None)])
def test_a_proposed_enum_value_is_one_of_the_allowed_values_or_none(raw, value):
    from focal.sensing.extraction import allowed_value

    assert allowed_value(DAMAGE, raw) == value
