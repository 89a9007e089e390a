"""The agent file's JSON Schema as editors read it: draft 2020-12, an $id, a description on every
property, nothing internal."""

from __future__ import annotations

from focal.models.agent import SCHEMA_ID, agent_json_schema


def _properties(schema: dict) -> list[tuple[str, str, dict]]:
    out = [("AgentConfig", name, prop) for name, prop in schema["properties"].items()]
    for model, definition in schema.get("$defs", {}).items():
        out += [(model, name, prop) for name, prop in definition.get("properties", {}).items()]
    return out


def test_schema_declares_its_draft_and_id():
    schema = agent_json_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == SCHEMA_ID and ":" in SCHEMA_ID  # an absolute URI


def test_every_property_has_a_description():
    props = _properties(agent_json_schema())
    assert len(props) > 150
    undocumented = [f"{model}.{name}" for model, name, prop in props if not prop.get("description", "").strip()]
    assert undocumented == []


def test_base_dir_is_not_part_of_the_file():
    schema = agent_json_schema()
    assert "base_dir" not in schema["properties"]
    assert "base_dir" not in str(schema)


def test_every_optional_property_shows_its_default():
    """Computed defaults (lists, mappings, nested settings) are shown too, so an editor's hover and the generated
    reference (docs/reference/agent-file.md) give every default."""
    schema = agent_json_schema()
    missing = []
    for model, definition in [("AgentConfig", schema), *schema["$defs"].items()]:
        required = set(definition.get("required", []))
        missing += [f"{model}.{name}" for name, prop in definition.get("properties", {}).items()
                    if name not in required and "default" not in prop]
    assert missing == []
    assert schema["$defs"]["ProfileFieldDefinition"]["properties"]["sources"]["default"] == ["message", "response", "tool", "profile"]
    assert schema["properties"]["navigation"]["default"]["stickiness_boost"] == 0.15
