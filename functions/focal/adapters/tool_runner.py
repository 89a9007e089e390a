"""The `ToolRunner` the engine is given: validates the arguments against the tool's input schema,
then dispatches by kind to the python, http or lambda runner, passing on the call's context (whose
idempotency key each kind delivers its own way: see those runners).

Validation happens before any call: an undeclared argument, a missing required one, or a value that
does not fit its declared type is a `ToolInputInvalid` naming the argument (never its value).
Values are brought to their type with `focal.sensing.extraction.coerce`, but strictly: '12abc' is
not an integer, 'maybe' is not a boolean. (What a tool answers is checked against the types of the
variables it fills by the engine, for every runner: `focal.dialogue.tool_outputs`.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from focal.errors import ToolError, ToolInputInvalid, ToolOutcomeUnknown
from focal.models.agent import AgentConfig, Tool, ToolKind, ToolParameter
from focal.models.turn import ToolCallContext
from focal.ports import SecretSource, ToolRunner
from focal.sensing.extraction import _FALSE_WORDS, _TRUE_WORDS, coerce

_NUMERIC = ("number", "money", "percentage")
_SCALAR = (str, int, float)


def _invalid(tool: Tool, name: str, why: str) -> ToolInputInvalid:
    return ToolInputInvalid(f"tool {tool.id!r}: argument {name!r} {why}", argument=name)


class _Unfit(ValueError):
    """Why a value does not fit its declared type ('must be an integer')."""


def _number(kind: str, value: Any, allowed: list[str] | None) -> Any:
    out = None if isinstance(value, bool) else coerce(kind, value)
    if out is None:
        raise _Unfit(f"must be a number ({kind})")
    return out


def _integer(kind: str, value: Any, allowed: list[str] | None) -> int:
    number = None if isinstance(value, bool) else coerce("number", value)
    if number is None or not float(number).is_integer():
        raise _Unfit("must be an integer")
    return int(number)


def _boolean(kind: str, value: Any, allowed: list[str] | None) -> bool:
    """true/false, or a yes/no word (or 1/0) as text or number."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, _SCALAR) else None
    if word in _TRUE_WORDS or word == "1":
        return True
    if word in _FALSE_WORDS or word == "0":
        return False
    raise _Unfit("must be a boolean")


def _values(kind: str, value: Any, allowed: list[str] | None) -> list[Any]:
    """A list of scalar values, or one value (not a boolean) as a list of its text."""
    if isinstance(value, list | tuple) and all(isinstance(v, _SCALAR) for v in value):
        return list(value)
    if isinstance(value, _SCALAR) and not isinstance(value, bool):
        return [str(value)]
    raise _Unfit("must be a list of values")


def _text(kind: str, value: Any, allowed: list[str] | None) -> str:
    """string, id, enum, date: one scalar value, sent as text (an enum's among `allowed`, ignoring case)."""
    if isinstance(value, bool) or not isinstance(value, _SCALAR):
        raise _Unfit(f"must be a single {kind} value")
    text = value if isinstance(value, str) else str(value)
    if kind == "enum" and allowed is not None and text.casefold() not in {a.casefold() for a in allowed}:
        raise _Unfit("is not one of the allowed values of its field")
    return text


_COERCE: dict[str, Callable[[str, Any, list[str] | None], Any]] = {
    "number": _number, "money": _number, "percentage": _number, "integer": _integer, "boolean": _boolean,
    "entity_list": _values,
}


def coerce_argument(tool: Tool, name: str, spec: ToolParameter, value: Any, allowed: list[str] | None = None) -> Any:
    """`value` brought to the argument's declared type, or ToolInputInvalid naming the argument (never its value)."""
    try:
        return _COERCE.get(spec.type, _text)(spec.type, value, allowed)
    except _Unfit as exc:
        raise _invalid(tool, name, str(exc)) from None


def enum_values(agent: AgentConfig, tool: Tool) -> dict[str, list[str]]:
    """An enum argument's allowed values: those of the field of the same name."""
    return {name: f.allowed_values for name, spec in tool.input.items()
            if spec.type == "enum" and (f := agent.field(name)) is not None and f.allowed_values}


def validate_arguments(tool: Tool, arguments: dict[str, Any], enums: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """The arguments brought to the tool's input schema, or ToolInputInvalid naming the first bad one.
    `enums`: an enum argument's allowed values (`enum_values`)."""
    for name in arguments:
        if name not in tool.input:
            raise _invalid(tool, name, "is not an input of this tool")
    out: dict[str, Any] = {}
    for name, spec in tool.input.items():
        value = arguments.get(name)
        if value is None or value == "":
            if spec.required:
                raise _invalid(tool, name, "is required")
            continue
        out[name] = coerce_argument(tool, name, spec, value, (enums or {}).get(name))
    return out


class KindToolRunner:
    """Dispatches by `Tool.kind`; the http and lambda runners are created on first use."""

    def __init__(self, secrets: SecretSource | None = None, *, python: ToolRunner | None = None,
                 http: ToolRunner | None = None, lambda_: ToolRunner | None = None,
                 allow_private_hosts: bool = True):
        from focal.adapters.python_tools import PythonToolRunner

        self.secrets = secrets
        self.allow_private_hosts = allow_private_hosts
        self._runners: dict[ToolKind, ToolRunner | None] = {
            ToolKind.python: python or PythonToolRunner(), ToolKind.http: http, ToolKind.lambda_: lambda_,
        }

    def runner(self, kind: ToolKind) -> ToolRunner:
        runner = self._runners.get(kind)
        if runner is None:
            if kind == ToolKind.http:
                from focal.adapters.http_tools import HttpToolRunner
                from focal.adapters.secrets import EnvSecretSource

                runner = HttpToolRunner(self.secrets or EnvSecretSource(), allow_private_hosts=self.allow_private_hosts)
            elif kind == ToolKind.lambda_:
                from focal.adapters.lambda_tools import LambdaToolRunner

                runner = LambdaToolRunner()
            else:
                raise ToolError(f"tool kind {kind.value!r} is not supported")
            self._runners[kind] = runner
        return runner

    def run(self, agent: AgentConfig, tool: Tool, arguments: dict[str, Any],
            context: ToolCallContext | None = None) -> dict[str, Any]:
        checked = validate_arguments(tool, arguments, enum_values(agent, tool))
        result = self.runner(tool.kind).run(agent, tool, checked, context)
        if not isinstance(result, dict):
            raise ToolOutcomeUnknown(f"tool {tool.id!r} returned {type(result).__name__}, expected a mapping")
        return result
