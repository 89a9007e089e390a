"""A tool argument brought to its declared type before any call (focal.adapters.tool_runner.coerce_argument), strictly:
what each type accepts, the value it sends (its Python type too), and the error naming the argument otherwise."""

from __future__ import annotations

from typing import Any

import pytest

from focal.adapters.tool_runner import coerce_argument
from focal.errors import ToolInputInvalid
from focal.models.agent import Tool, ToolParameter

TOOL = Tool(id="t", entrypoint="tools.py:f")
ALLOWED = ["gold", "silver", "3"]


def coerced(kind: str, value: Any, allowed: list[str] | None = None) -> Any:
    return coerce_argument(TOOL, "arg", ToolParameter(type=kind), value, allowed)


@pytest.mark.parametrize(("kind", "value", "sent"), [
    ("money", "12.50", 12.5), ("money", "$1,200", 1200.0), ("number", 3, 3.0), ("percentage", "15%", 15.0),
    ("integer", "12", 12), ("integer", 12.0, 12),
    ("boolean", True, True), ("boolean", "Yes", True), ("boolean", " 1 ", True), ("boolean", 0, False),
    ("boolean", "no", False), ("boolean", False, False),
    ("entity_list", ["a", 2], ["a", 2]), ("entity_list", ("a",), ["a"]), ("entity_list", "a", ["a"]),
    ("entity_list", 3, ["3"]),
    ("string", "x", "x"), ("string", 5, "5"), ("id", 1.5, "1.5"), ("date", "2024-01-01", "2024-01-01"),
    ("enum", "anything", "anything"),
])
def test_what_each_type_accepts_and_sends(kind, value, sent):
    out = coerced(kind, value)
    assert out == sent and type(out) is type(sent)


def test_an_enum_value_is_one_of_its_fields_values_in_any_case():
    assert coerced("enum", "Gold", ALLOWED) == "Gold" and coerced("enum", 3, ALLOWED) == "3"


@pytest.mark.parametrize(("kind", "value", "why"), [
    ("money", True, "must be a number (money)"), ("money", "abc", "must be a number (money)"),
    ("percentage", None, "must be a number (percentage)"),
    ("integer", "12.5", "must be an integer"), ("integer", False, "must be an integer"),
    ("integer", "12abc", "must be an integer"),
    ("boolean", "maybe", "must be a boolean"), ("boolean", [1], "must be a boolean"), ("boolean", 1.0, "must be a boolean"),
    ("entity_list", True, "must be a list of values"), ("entity_list", [["a"]], "must be a list of values"),
    ("entity_list", {"a": 1}, "must be a list of values"),
    ("string", True, "must be a single string value"), ("string", ["x"], "must be a single string value"),
    ("date", {"y": 1}, "must be a single date value"),
])
def test_a_value_that_does_not_fit_names_the_argument_and_why(kind, value, why):
    with pytest.raises(ToolInputInvalid) as caught:
        coerced(kind, value)
    assert str(caught.value) == f"tool 't': argument 'arg' {why}" and caught.value.argument == "arg"


def test_an_enum_value_outside_its_fields_values_is_refused():
    with pytest.raises(ToolInputInvalid, match="^tool 't': argument 'arg' is not one of the allowed values of its field$"):
        coerced("enum", "tin", ALLOWED)
