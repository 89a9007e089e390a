"""JSON Schema → Markdown: one table per object model (field, type, default, description), models linked by anchor."""

from __future__ import annotations

import json
from typing import Any

LIMITS = (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<"),
          ("minLength", "length ≥"), ("maxLength", "length ≤"))
MAX_DEFAULT = 60  # characters of a default shown inline; longer ones (nested settings) point to their model's table


def anchor(prefix: str, name: str) -> str:
    return f"{prefix}-{name.lower()}"


def _cell(text: str) -> str:
    """A table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


class SchemaRenderer:
    """Renders the object models of one schema (its root and `$defs`, or OpenAPI components)."""

    def __init__(self, definitions: dict[str, Any], prefix: str, ref_prefix: str):
        self.definitions = definitions
        self.prefix = prefix  # anchors: '<prefix>-<model>'
        self.ref_prefix = ref_prefix  # '#/$defs/' or '#/components/schemas/'

    def _name(self, ref: str) -> str:
        return ref.removeprefix(self.ref_prefix)

    def is_object(self, name: str) -> bool:
        return "properties" in self.definitions.get(name, {})

    def type_of(self, prop: dict[str, Any]) -> str:
        if "$ref" in prop:
            name = self._name(prop["$ref"])
            target = self.definitions.get(name, {})
            if self.is_object(name):
                return f"[{name}](#{anchor(self.prefix, name)})"
            return self.type_of({k: v for k, v in target.items() if k not in ("title", "description")})
        if "const" in prop:
            return f"`{json.dumps(prop['const'])}`"
        if "enum" in prop:
            return "one of " + ", ".join(f"`{v}`" for v in prop["enum"])
        for key in ("anyOf", "oneOf"):
            if key in prop:
                branches = [b for b in prop[key] if b.get("type") != "null"]
                nullable = len(branches) < len(prop[key])
                text = " or ".join(self.type_of(b) for b in branches) or "null"
                return text + (" or null" if nullable else "")
        kind = prop.get("type")
        if kind == "array":
            return f"list of {self.type_of(prop.get('items', {}))}"
        if kind == "object":
            values = prop.get("additionalProperties")
            return f"mapping of text → {self.type_of(values)}" if isinstance(values, dict) else "mapping"
        if isinstance(kind, list):
            return " or ".join(kind)
        limits = [f"{word} {prop[key]}" for key, word in LIMITS if key in prop]
        text = kind or "any value"
        return text + (f" ({', '.join(limits)})" if limits else "")

    def default_of(self, name: str, prop: dict[str, Any], required: bool) -> str:
        if required:
            return "**required**"
        if "default" not in prop:
            return "—"
        shown = json.dumps(prop["default"], ensure_ascii=False)
        if len(shown) > MAX_DEFAULT:
            return "see its table" if "$ref" in prop else "(long: see the description)"
        return f"`{shown}`"

    def table(self, name: str) -> list[str]:
        definition = self.definitions[name]
        required = set(definition.get("required", []))
        lines = ["| field | type | default | description |", "|---|---|---|---|"]
        for field, prop in definition.get("properties", {}).items():
            lines.append(f"| `{field}` | {_cell(self.type_of(prop))} | {_cell(self.default_of(field, prop, field in required))} "
                         f"| {_cell(prop.get('description', ''))} |")
        return lines

    def section(self, name: str, level: int = 2) -> list[str]:
        definition = self.definitions[name]
        out = [f"{'#' * level} `{name}` {{#{anchor(self.prefix, name)}}}", ""]
        if definition.get("description"):
            out += [" ".join(definition["description"].split()), ""]
        return out + self.table(name) + [""]

    def order(self, roots: list[str]) -> list[str]:
        """Object models reachable from `roots`, each once, in the order a reader meets them (breadth first)."""
        seen: list[str] = []
        queue = list(roots)
        while queue:
            name = queue.pop(0)
            if name in seen or not self.is_object(name):
                continue
            seen.append(name)
            queue += [self._name(ref) for ref in refs(self.definitions[name].get("properties", {}))]
        return seen


def refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        for value in node.values():
            found += refs(value)
        return found
    if isinstance(node, list):
        return [ref for item in node for ref in refs(item)]
    return []


def agent_file_reference() -> str:
    """Every model of the agent file, from `focal schema`, starting at the file's top level."""
    from focal.models.agent import agent_json_schema

    schema = agent_json_schema()
    definitions = {"AgentConfig": {k: v for k, v in schema.items() if not k.startswith("$")}, **schema["$defs"]}
    renderer = SchemaRenderer(definitions, "agent", "#/$defs/")
    models = renderer.order(["AgentConfig"])
    unreached = [n for n in definitions if renderer.is_object(n) and n not in models]
    lines = [f"Schema id `{schema['$id']}` (JSON Schema {schema['$schema'].split('/')[-2]}); "
             f"{len(models)} models, {sum(len(definitions[m]['properties']) for m in models)} fields.", ""]
    for name in models + unreached:
        lines += renderer.section(name, level=3)
    return "\n".join(lines)
