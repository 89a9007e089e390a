"""Rendering a structured draft: every `{name}` placeholder bound to a known value or a commitment.

A placeholder names a known variable (profile, session, slot, tool output, field default — the agent's
declared constants) or one of the draft's commitments. The engine formats the value (numbers as the
agent's own templates show them), so the model never types a figure it could get wrong. A name bound to
nothing is reported: such a draft is not said (regenerated, then the fallback). The spans of the rendered
values are kept, so the check on unbound facts (focal.enforcement.facts) knows which figures came from a
binding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from focal.variables import render

_PLACEHOLDER = re.compile(r"\{\{?\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}?\}")


@dataclass
class Rendered:
    text: str
    spans: list[tuple[int, int]] = field(default_factory=list)  # [start, end) of each rendered known value
    commitments: dict[str, Any] = field(default_factory=dict)  # the commitments a draft may make: the allowed names
    bound: dict[str, Any] = field(default_factory=dict)  # placeholder → the value it showed
    unbound: list[str] = field(default_factory=list)  # placeholders naming nothing known


def _lookup(name: str, values: dict[str, Any]) -> Any:
    """`booking.total` reads a key of a mapping; a plain name reads the variable."""
    head, _, rest = name.partition(".")
    value = values.get(head)
    for part in rest.split(".") if rest else []:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def render_draft(text: str, variables: dict[str, Any], commitments: dict[str, Any] | None,
                 allowed: Iterable[str] = ()) -> Rendered:
    """The draft as the customer reads it. A commitment to one of the `allowed` response fields is shown by its own
    value (the answer says what it commits to); every other placeholder by the turn's known values. A commitment never
    overrides a known value, and what it shows is the model's: not masked as bound, so the check on unbound facts
    reads it like any text the model wrote (the rule lanes settle its figure)."""
    allowed = set(allowed)
    result = Rendered(text="", commitments={k: v for k, v in (commitments or {}).items() if k in allowed})
    values = {**variables, **result.commitments}
    out: list[str] = []
    last = 0
    length = 0
    for m in _PLACEHOLDER.finditer(text):
        name = m.group(1)
        value = _lookup(name, values)
        before = text[last:m.start()]
        out.append(before)
        length += len(before)
        if value is None or value == "" or isinstance(value, dict | list):
            shown = m.group(0)
            result.unbound.append(name)
        else:
            shown = render("{v}", {"v": value})
            if name.partition(".")[0] not in result.commitments:
                result.spans.append((length, length + len(shown)))
            result.bound[name] = value
        out.append(shown)
        length += len(shown)
        last = m.end()
    out.append(text[last:])
    result.text = "".join(out)
    return result
