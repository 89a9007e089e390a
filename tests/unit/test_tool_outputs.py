"""The check of a tool's answer against the declared types of the variables it fills
(`dialogue/tool_outputs.py`): exact conversions or none, and a refusal that names the output."""

from __future__ import annotations

import math
from typing import Any

import pytest

from focal.dialogue.tool_outputs import WrongType, checked_outputs, checked_value, declared_type
from focal.errors import ToolOutputInvalid
from focal.models.agent import AgentConfig, ProfileFieldDefinition

STATUS = ProfileFieldDefinition(field_name="status", field_type="enum", allowed_values=["shipped", "water damage"],
                                value_synonyms={"water damage": ["flood"]})
EXTRAS = ProfileFieldDefinition(field_name="extras", field_type="entity_list", allowed_values=["Wifi", "Breakfast"])


@pytest.mark.parametrize(("kind", "value", "kept"), [
    ("money", 12, 12.0), ("money", "12.50", 12.5), ("number", " -3.5 ", -3.5), ("percentage", "1e1", 10.0),
    ("number", ".5", 0.5),
    ("integer", 3, 3), ("integer", 3.0, 3), ("integer", "-7", -7), ("integer", " 42 ", 42),
    ("boolean", True, True), ("boolean", False, False), ("boolean", "true", True), ("boolean", " FALSE ", False),
    ("string", "Desk lamp", "Desk lamp"), ("string", "", ""), ("id", 1001, 1001), ("date", "2026-05-01", "2026-05-01"),
    ("entity_list", [], []), ("entity_list", ["a", 2], ["a", 2]),
    (None, "text", "text"), (None, 4, 4), (None, True, True),
    ("money", None, None), ("string", None, None), (None, None, None),
])
def test_a_value_of_the_declared_type_is_kept_exactly_or_converted_exactly(kind, value, kept):
    out = checked_value(kind, value)
    assert out == kept and type(out) is type(kept)


@pytest.mark.parametrize(("kind", "value", "why"), [
    ("money", "$12.50", "must be a number (money), not a text"),
    ("money", "12,50", "must be a number (money), not a text"),
    ("number", "12 apples", "must be a number (number), not a text"),
    ("number", "nan", "must be a number (number), not a text"),
    ("number", math.inf, "must be a number (number), not a number"),
    ("number", "1e999", "must be a number (number), not a text"),
    ("money", True, "must be a number (money), not a yes/no"),
    ("money", [1], "must be a number (money), not a list"),
    ("integer", 2.5, "must be an integer, not a number"),
    ("integer", "3.0", "must be an integer, not a text"),
    ("integer", False, "must be an integer, not a yes/no"),
    ("boolean", "yes", "must be true or false, not a text"),
    ("boolean", "1", "must be true or false, not a text"),
    ("boolean", 0, "must be true or false, not a number"),
    ("boolean", "", "must be true or false, not a text"),
    ("string", ["a", "a"], "must be a text (string), not a list"),
    ("string", {"x": 1}, "must be a text (string), not an object"),
    ("string", False, "must be a text (string), not a yes/no"),
    ("id", math.nan, "must be a text (id), not a number"),
    ("date", {"y": 2026}, "must be a text (date), not an object"),
    ("entity_list", "Wifi", "must be a list of single values, not a text"),
    ("entity_list", [["a"]], "must be a list of single values, not a list"),
    ("entity_list", [True], "must be a list of single values, not a list"),
    ("enum", ["shipped"], "must be one value (enum), not a list"),
    (None, ["a"], "must be a single value, not a list"),
    (None, {"a": 1}, "must be a single value, not an object"),
])
def test_a_value_of_another_type_is_refused_saying_why_without_the_value(kind, value, why):
    with pytest.raises(WrongType) as caught:
        checked_value(kind, value)
    assert str(caught.value) == why


def test_an_enum_value_is_an_allowed_value_or_a_synonym_given_back_in_the_fields_spelling():
    assert checked_value("enum", "SHIPPED", STATUS) == "shipped"
    assert checked_value("enum", "flood", STATUS) == "water damage"
    with pytest.raises(WrongType, match="not one of the field's allowed values"):
        checked_value("enum", "lost", STATUS)
    assert checked_value("entity_list", ["wifi", "Breakfast"], EXTRAS) == ["Wifi", "Breakfast"]
    with pytest.raises(WrongType, match="not one of the field's allowed values"):
        checked_value("entity_list", ["Wifi", "Spa"], EXTRAS)


def agent(**raw: Any) -> AgentConfig:
    return AgentConfig.model_validate({"id": "a", "name": "a", **raw})


SHOP = agent(
    profile_field_definitions=[{"field_name": "order_total", "field_type": "money"},
                               {"field_name": "order_item", "field_type": "string"}],
    scenarios=[{"id": "s", "name": "s", "entry_step_id": "a", "entry_examples": ["x"],
                "steps": [{"id": "a", "slots": [{"name": "quantity", "type": "integer", "prompt": "How many?"}]}]}],
    tools=[{"id": "lookup", "entrypoint": "tools.py:lookup",
            "output": {"total": "order_total", "item": "order_item", "qty": "quantity", "note": "order_note"}}],
)


def test_a_variables_type_is_its_fields_else_its_slots_else_none():
    assert declared_type(SHOP, "order_total") == "money"
    assert declared_type(SHOP, "quantity") == "integer"
    assert declared_type(SHOP, "order_note") is None


def test_the_outputs_are_checked_by_the_variable_they_fill_and_only_the_declared_ones_are_taken():
    tool = SHOP.tools[0]
    answer = {"total": "30", "item": "Lamp", "qty": "2", "note": "fragile", "internal": {"debug": [1, 2]}}
    assert checked_outputs(SHOP, tool, answer) == {"order_total": 30.0, "order_item": "Lamp", "quantity": 2,
                                                   "order_note": "fragile"}
    assert checked_outputs(SHOP, tool, {"item": "Lamp"}) == {"order_item": "Lamp"}  # what it did not answer stays unset


def test_one_wrong_output_refuses_the_whole_answer_naming_the_output_and_the_variable():
    tool = SHOP.tools[0]
    with pytest.raises(ToolOutputInvalid) as caught:
        checked_outputs(SHOP, tool, {"total": 30, "item": "Lamp", "qty": ["secret-ish", "list"]})
    error = caught.value
    assert (error.code, error.output, error.variable) == ("tool_output_invalid", "qty", "quantity")
    assert str(error) == "tool 'lookup': output 'qty' (variable 'quantity') must be an integer, not a list"
    assert "secret-ish" not in str(error)
