"""Where a tool's arguments come from. A parameter reads the variable of its own name, unless the tool's
`arguments` maps it to a variable or an expression over variables (`arguments: {zip: new_zip}`), so a tool's
parameter names never dictate the agent's variable names: the verification zip and the new address's zip
can be two variables feeding two tools' `zip`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from focal import expressions
from focal.errors import ExpressionError
from focal.models.agent import Tool


def sources(tool: Tool, name: str) -> list[str]:
    """The variables parameter `name` reads (none when its mapping cannot be parsed: validate reports that)."""
    mapped = tool.arguments.get(name)
    if mapped is None:
        return [name]
    try:
        return sorted(expressions.names(mapped))
    except ExpressionError:
        return []


def read_variables(tool: Tool, required_only: bool = False) -> list[str]:
    """Every variable the tool's parameters read, each once, as declared; `required_only`: those of the parameters
    a call waits for (required, with no default)."""
    return list(dict.fromkeys(v for n, spec in tool.input.items()
                              if not required_only or (spec.required and spec.default is None)
                              for v in sources(tool, n)))


def argument_value(tool: Tool, name: str, variables: Mapping[str, Any]) -> Any:
    """Parameter `name`'s value on `variables`; None when a variable it reads is unknown."""
    mapped = tool.arguments.get(name)
    if mapped is None:
        return variables.get(name)
    if any(variables.get(v) is None for v in sources(tool, name)):
        return None
    try:
        return expressions.evaluate(mapped, variables)
    except ExpressionError:
        return None


def tool_arguments(tool: Tool, variables: Mapping[str, Any]) -> dict[str, Any]:
    """The call's arguments on `variables`: every parameter with a known value (an empty string is a value), else
    its declared default."""
    out = {}
    for name, spec in tool.input.items():
        value = argument_value(tool, name, variables)
        if value is None:
            value = spec.default
        if value is not None:
            out[name] = value
    return out
