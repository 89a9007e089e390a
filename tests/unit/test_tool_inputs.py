"""A tool's arguments: mapped variables or expressions, an empty string as a value, defaults for unknown inputs."""

from __future__ import annotations

from focal.models.agent import Tool
from focal.tool_inputs import read_variables, tool_arguments

TOOL = Tool.model_validate({
    "id": "change_address", "entrypoint": "tools.py:change",
    "input": {"order_id": {}, "zip": {}, "address2": {}, "notify": {"type": "boolean", "default": True},
              "total": {"type": "number", "required": False}},
    "arguments": {"zip": "new_zip", "total": "price * quantity"},
})


def test_mapped_parameters_read_their_variables_and_unmapped_ones_their_own_name():
    args = tool_arguments(TOOL, {"order_id": "A1", "zip": "00000", "new_zip": "10115", "address2": "",
                                 "price": 4, "quantity": 3})
    assert args == {"order_id": "A1", "zip": "10115", "address2": "", "notify": True, "total": 12}


def test_an_unknown_variable_leaves_its_parameter_out_and_a_default_fills_in():
    args = tool_arguments(TOOL, {"order_id": "A1", "price": 4, "notify": False})
    assert args == {"order_id": "A1", "notify": False}  # zip (new_zip unknown), total (quantity unknown) left out


def test_what_a_call_waits_for_excludes_optional_and_defaulted_parameters():
    assert read_variables(TOOL, required_only=True) == ["order_id", "new_zip", "address2"]
    assert read_variables(TOOL) == ["order_id", "new_zip", "address2", "notify", "price", "quantity"]
