"""Helpers for reading the synthesized CloudFormation template."""

from __future__ import annotations

import json
from typing import Any


def of_type(resources: dict[str, Any], cfn_type: str) -> dict[str, dict[str, Any]]:
    return {lid: r for lid, r in resources.items() if r["Type"] == cfn_type}


def definition_with_placeholders(definition_string: Any) -> dict[str, Any]:
    """Parse a DefinitionString, replacing each token by a readable placeholder (`<GetAtt X.Arn>`)."""
    if isinstance(definition_string, str):
        return json.loads(definition_string)
    sep, parts = definition_string["Fn::Join"]
    text = ""
    for part in parts:
        if isinstance(part, str):
            text += part
        elif "Fn::GetAtt" in part:
            text += f"<GetAtt {part['Fn::GetAtt'][0]}.{part['Fn::GetAtt'][1]}>"
        elif "Ref" in part:
            text += f"<Ref {part['Ref']}>"
        else:
            raise AssertionError(f"unexpected token in definition: {part}")
        text += sep
    return json.loads(text)


def method(resources: dict[str, Any], http_method: str, path_part: str | None = None) -> dict[str, Any]:
    """The API's one method with this HTTP verb on a resource ending in `path_part` (POST "turns": a
    turn, POST "{approval_id}": answer an approval, PUT: publish an agent)."""
    (found,) = [m for m in of_type(resources, "AWS::ApiGateway::Method").values()
                if m["Properties"]["HttpMethod"] == http_method
                and (path_part is None
                     or resources[m["Properties"]["ResourceId"]["Ref"]]["Properties"]["PathPart"] == path_part)]
    return found


def resolve(value: Any, refs: dict[str, Any]) -> Any:
    """A template value with its `Ref`s (pseudo parameters and logical ids, from `refs`) and `Fn::Join`s resolved;
    any other intrinsic is an error."""
    if isinstance(value, list):
        return [resolve(v, refs) for v in value]
    if not isinstance(value, dict):
        return value
    if set(value) == {"Ref"}:
        return refs[value["Ref"]]
    if set(value) == {"Fn::Join"}:
        sep, parts = value["Fn::Join"]
        return sep.join(str(resolve(p, refs)) for p in parts)
    if any(k.startswith("Fn::") for k in value):
        raise AssertionError(f"unresolved intrinsic in {value}")
    return {k: resolve(v, refs) for k, v in value.items()}
