"""An enum argument is checked against its field's allowed values before the tool runs (a newcomer's
`{type: enum}` input took any text); the case of a value does not matter, and an enum with no field values
is checked as text only."""

from __future__ import annotations

import pytest

from focal.adapters.tool_runner import KindToolRunner, enum_values, validate_arguments
from focal.errors import ToolInputInvalid
from focal.models.agent import AgentConfig

AGENT = AgentConfig.model_validate({
    "id": "gym", "name": "Gym",
    "profile_field_definitions": [
        {"field_name": "freeze_length", "field_type": "enum", "allowed_values": ["week", "month"], "sources": ["message"]},
        {"field_name": "note", "field_type": "string", "sources": ["message"]},
    ],
    "tools": [{"id": "freeze", "entrypoint": "tools.py:freeze", "side_effect": True,
               "input": {"freeze_length": {"type": "enum"}, "note": {"type": "enum", "required": False}}}],
})
TOOL = AGENT.tools[0]


class Recorder:
    def __init__(self) -> None:
        self.calls: list[dict] = []

    def run(self, agent, tool, arguments, context=None):
        self.calls.append(arguments)
        return {}


def test_a_value_outside_the_fields_values_never_reaches_the_tool():
    inner = Recorder()
    runner = KindToolRunner(python=inner)
    with pytest.raises(ToolInputInvalid, match="freeze_length"):
        runner.run(AGENT, TOOL, {"freeze_length": "forever"})
    assert inner.calls == []
    runner.run(AGENT, TOOL, {"freeze_length": "Month"})
    assert inner.calls == [{"freeze_length": "Month"}]


def test_only_enum_arguments_whose_field_lists_values_are_checked_against_them():
    assert enum_values(AGENT, TOOL) == {"freeze_length": ["week", "month"]}
    assert validate_arguments(TOOL, {"freeze_length": "week", "note": "anything"}, enum_values(AGENT, TOOL)) == {
        "freeze_length": "week", "note": "anything"}


def test_validate_warns_about_an_enum_argument_whose_field_lists_no_values(tmp_path):
    from focal.config.gate import validate_file

    (tmp_path / "tools.py").write_text("def freeze(freeze_length, note=None):\n    return {}\n", encoding="utf-8")
    (tmp_path / "agent.yaml").write_text("""\
id: gym
name: Gym
profile_field_definitions:
  - {field_name: freeze_length, field_type: enum, allowed_values: [week, month], sources: [message]}
  - {field_name: note, field_type: string, sources: [message]}
tools:
  - id: freeze
    entrypoint: 'tools.py:freeze'
    side_effect: true
    input: {freeze_length: {type: enum}, note: {type: enum, required: false}}
""", encoding="utf-8")
    result = validate_file(tmp_path / "agent.yaml")
    enum = [(w.path, w.message) for w in result.warnings if "is an enum" in w.message]
    assert len(enum) == 1 and enum[0][0] == "tools[0].input.note", result.warnings
