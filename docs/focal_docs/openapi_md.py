"""The OpenAPI document `focal serve` serves → Markdown: each route with its parameters, body and answers, then
every schema the routes name."""

from __future__ import annotations

from typing import Any

from focal_docs.schema_md import SchemaRenderer, refs

PREFIX = "api"
REF = "#/components/schemas/"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _body(renderer: SchemaRenderer, content: dict[str, Any]) -> str:
    kinds = []
    for media, spec in content.items():
        schema = spec.get("schema", {})
        kinds.append(f"`{media}`: {renderer.type_of(schema)}")
    return "; ".join(kinds)


def _param_type(renderer: SchemaRenderer, schema: dict[str, Any]) -> str:
    text = renderer.type_of(schema)
    return text + (f", matching `{schema['pattern']}`" if "pattern" in schema else "")


def _scheme(scheme: dict[str, Any]) -> str:
    if scheme.get("type") == "apiKey":
        return f"the `{scheme['name']}` {scheme.get('in', 'header')}"
    return f"`Authorization: {str(scheme.get('scheme', '')).capitalize()} <key>`"


def _operation(renderer: SchemaRenderer, method: str, path: str, op: dict[str, Any]) -> list[str]:
    lines = [f"## `{method.upper()} {path}`", "", f"{op.get('summary', '')} (operation `{op.get('operationId', '')}`).", ""]
    if "local" in op.get("tags", []):
        lines += ["Served by `focal serve` only: API Gateway has no such route."
                  + (" No key needed." if op.get("security") == [] else ""), ""]
    params = op.get("parameters", [])
    if params:
        lines += ["| parameter | in | type |", "|---|---|---|"]
        lines += [f"| `{p['name']}` | {p['in']} | {_cell(_param_type(renderer, p.get('schema', {})))} |" for p in params]
        lines.append("")
    if "requestBody" in op:
        lines += [f"Body: {_body(renderer, op['requestBody'].get('content', {}))}.", ""]
    lines += ["| status | meaning | body |", "|---|---|---|"]
    for status, answer in op.get("responses", {}).items():
        lines.append(f"| {status} | {_cell(answer.get('description', ''))} | {_cell(_body(renderer, answer.get('content', {})))} |")
    return lines + [""]


def http_reference() -> str:
    from focal.cli.openapi import openapi_document

    doc = openapi_document()
    schemas = doc["components"]["schemas"]
    renderer = SchemaRenderer(schemas, PREFIX, REF)
    security = " or ".join(_scheme(s) for s in doc["components"]["securitySchemes"].values())
    lines = [f"OpenAPI {doc['openapi']}, “{doc['info']['title']}”: {doc['info']['description']} "
             f"Every route needs an API key unless it says otherwise: {security}.", ""]
    roots = []
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            lines += _operation(renderer, method, path, op)
            roots += [name.removeprefix(REF) for name in refs(op)]
    lines += ["## Schemas", ""]
    for name in renderer.order(roots):
        lines += renderer.section(name, level=3)
    return "\n".join(lines)

