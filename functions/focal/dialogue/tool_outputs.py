"""A tool's answer checked against the declared types of the variables its outputs fill, before any
of it becomes a session variable (and from there a template, a prompt, a guard's input).

Every kind of tool (python, http, lambda) answers through here (`tool_calls.execute`). A variable's
declared type is its field's `field_type`, else the type of the slot of that name; a variable
nothing types takes one plain value (a text, a number or a yes/no), never a list or an object. A
value that does not fit is a `ToolOutputInvalid` naming the output, the variable, the type expected
and the kind of value received (never the value): the whole answer is refused, so the call fails
like any other and the customer never sees "['a', 'a'] is {'x': 1}".

Conversions are exact or none: a number may be given as a numeric text ("12.50") where the type is
a number, an integer as an integral number or text ("3", 3.0); a yes/no is `true`/`false` (JSON or
that text), never "yes", "1" or any other word; an enum or entity value is one of the field's allowed
values (or their synonyms), given back in the field's spelling. A text-like type (string, id, date)
takes a text, or a number kept as it is (an id answered as a JSON number), never a yes/no.
"""

from __future__ import annotations

import math
import re
from typing import Any

from focal.errors import ToolOutputInvalid
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Tool
from focal.sensing.extraction import allowed_value

NUMBER_KINDS = ("number", "money", "percentage")
TEXT_KINDS = ("string", "id", "date")
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")


class WrongType(ValueError):
    """Why a value does not fit a type (without the value)."""


def _kind_of(value: Any) -> str:
    names = {bool: "a yes/no", str: "a text", int: "a number", float: "a number", list: "a list", dict: "an object"}
    return next((n for t, n in names.items() if type(value) is t), f"a {type(value).__name__}")


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):
        number = float(value.strip())
    else:
        return None
    return number if math.isfinite(number) else None


def _integer(value: Any) -> int | None:
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    number = None if isinstance(value, str) else _number(value)
    return int(number) if number is not None and number.is_integer() else None


def _boolean(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _scalar(value: Any) -> bool:
    return isinstance(value, str | bool) or (isinstance(value, int | float) and math.isfinite(value))


def _plain(value: Any) -> bool:
    """A text or a number: what a text-like type, an enum or a list element may hold (a yes/no is not one)."""
    return _scalar(value) and not isinstance(value, bool)


def _allowed(field: ProfileFieldDefinition | None, value: Any) -> Any:
    if field is None or not field.allowed_values:
        return value
    chosen = allowed_value(field, value)
    if chosen is None:
        raise WrongType("is not one of the field's allowed values")
    return chosen


def checked_value(kind: str | None, value: Any, field: ProfileFieldDefinition | None = None) -> Any:
    """`value` brought to `kind` (None: a variable nothing types), or WrongType saying why not.
    None (the tool has no value for it) stays None."""
    if value is None:
        return None
    if kind is None:
        if not _scalar(value):
            raise WrongType(f"must be a single value, not {_kind_of(value)}")
        return value
    if kind in NUMBER_KINDS:
        number = _number(value)
        if number is None:
            raise WrongType(f"must be a number ({kind}), not {_kind_of(value)}")
        return number
    if kind == "integer":
        integer = _integer(value)
        if integer is None:
            raise WrongType(f"must be an integer, not {_kind_of(value)}")
        return integer
    if kind == "boolean":
        answer = _boolean(value)
        if answer is None:
            raise WrongType(f"must be true or false, not {_kind_of(value)}")
        return answer
    if kind == "entity_list":
        if not isinstance(value, list) or not all(_plain(v) for v in value):
            raise WrongType(f"must be a list of single values, not {_kind_of(value)}")
        return [_allowed(field, v) for v in value]
    if kind == "enum":
        if not _plain(value):
            raise WrongType(f"must be one value (enum), not {_kind_of(value)}")
        return _allowed(field, value)
    if not _plain(value):  # string, id, date
        raise WrongType(f"must be a text ({kind}), not {_kind_of(value)}")
    return value


def declared_type(agent: AgentConfig, name: str) -> str | None:
    """The variable's type: its field's, else its slot's; None when nothing declares one."""
    field = agent.field(name)
    if field is not None:
        return field.field_type
    return next((slot.type for s in agent.scenarios for st in s.steps for slot in st.slots if slot.name == name), None)


def checked_outputs(agent: AgentConfig, tool: Tool, result: dict[str, Any]) -> dict[str, Any]:
    """Variable → value for every output the tool declares and answered, all of them of their declared
    type; ToolOutputInvalid for the first that is not (and then none is kept)."""
    out: dict[str, Any] = {}
    for key, variable in tool.output.items():
        if key not in result:
            continue
        kind = declared_type(agent, variable)
        try:
            out[variable] = checked_value(kind, result[key], agent.field(variable))
        except WrongType as why:
            raise ToolOutputInvalid(f"tool {tool.id!r}: output {key!r} (variable {variable!r}) {why}",
                                    output=key, variable=variable) from None
    return out
