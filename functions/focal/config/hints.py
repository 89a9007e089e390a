"""'Did you mean …?' for names an agent file gets wrong: ids, field names, keys, enum values."""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel


def did_you_mean(name: str, candidates: Iterable[str], cutoff: float = 0.7) -> str:
    """'; did you mean 'x'?' when a candidate is close to `name`, else ''."""
    if not isinstance(name, str):
        return ""
    pool = sorted({c for c in candidates if isinstance(c, str) and c != name})
    close = difflib.get_close_matches(name, pool, n=1, cutoff=cutoff)
    if not close:  # a case slip ("Rebook" for "rebook") is closer than difflib's ratio says
        close = [c for c in pool if c.lower() == name.lower()][:1]
    return f"; did you mean '{close[0]}'?" if close else ""


def _unwrap(annotation: Any) -> list[Any]:
    """The types an annotation may hold (Optional and unions opened)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return [t for arg in typing.get_args(annotation) for t in _unwrap(arg)]
    return [annotation]


def model_at(root: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The pydantic model that validates the mapping at `loc` (e.g. ('rules', 2) → Rule), or None."""
    current: Any = root
    for part in loc:
        options = _unwrap(current)
        nxt = None
        for option in options:
            origin, args = typing.get_origin(option), typing.get_args(option)
            if isinstance(part, int) and origin in (list, tuple) and args:
                nxt = args[0]
            elif isinstance(part, str) and origin is dict and len(args) == 2:
                nxt = args[1]
            elif isinstance(part, str) and isinstance(option, type) and issubclass(option, BaseModel):
                field = option.model_fields.get(part)
                nxt = field.annotation if field else None
            if nxt is not None:
                break
        if nxt is None:
            return None
        current = nxt
    found = [t for t in _unwrap(current) if isinstance(t, type) and issubclass(t, BaseModel)]
    return found[0] if found else None


def schema_hint(root: type[BaseModel], error: Mapping[str, Any]) -> str:
    """A did-you-mean for one pydantic error: an unknown key, or a value outside an enum / Literal."""
    loc, kind = tuple(error.get("loc", ())), error.get("type")
    if kind == "extra_forbidden" and loc and isinstance(loc[-1], str):
        model = model_at(root, loc[:-1])
        return did_you_mean(loc[-1], model.model_fields) if model else ""
    if kind in ("enum", "literal_error") and isinstance(error.get("input"), str):
        expected = re.findall(r"'([^']*)'", str((error.get("ctx") or {}).get("expected", "")))
        return did_you_mean(error["input"], expected)
    return ""
