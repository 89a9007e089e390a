"""'Did you mean …?' for names an agent file gets wrong (ids, field names, keys, enum values, type names
written as in other languages) and for the slips that keep an expression from parsing ('=', '$100', '&&')."""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from focal import expressions
from focal.errors import ExpressionError


def closest(name: str, candidates: Iterable[str], cutoff: float = 0.7) -> str | None:
    """The candidate closest to `name` (other than `name`), if one is close enough."""
    if not isinstance(name, str):
        return None
    pool = sorted({c for c in candidates if isinstance(c, str) and c != name})
    close = difflib.get_close_matches(name, pool, n=1, cutoff=cutoff)
    if not close:  # a case slip ("Rebook" for "rebook") is closer than difflib's ratio says
        close = [c for c in pool if c.lower() == name.lower()][:1]
    return close[0] if close else None


def did_you_mean(name: str, candidates: Iterable[str], cutoff: float = 0.7) -> str:
    """'; did you mean 'x'?' when a candidate is close to `name`, else ''."""
    close = closest(name, candidates, cutoff)
    return f"; did you mean '{close}'?" if close else ""


# Type names from other languages and habits → the field type meant (field_type, a slot's or an argument's type).
TYPE_SYNONYMS = {
    "float": "number", "double": "number", "decimal": "number", "numeric": "number", "int": "integer",
    "bool": "boolean", "str": "string", "text": "string", "currency": "money", "dollars": "money", "dollar": "money",
    "percent": "percentage", "list": "entity_list", "array": "entity_list", "datetime": "date",
}


def synonym_hint(name: str, candidates: Iterable[str]) -> str:
    """'; did you mean 'number'?' for 'float' when 'number' is among `candidates`, else ''."""
    meant = TYPE_SYNONYMS.get(name.strip().lower()) if isinstance(name, str) else None
    return f"; did you mean '{meant}'?" if meant in set(candidates) else ""


def quoted(text: str, limit: int = 80) -> str:
    """`text` in quotes for a message: shortened past `limit`, in double quotes when it holds a single one."""
    shown = text.strip() if len(text.strip()) <= limit else text.strip()[:limit - 1] + "…"
    return f'"{shown}"' if "'" in shown else f"'{shown}'"


_TEXT = re.compile(r"'[^']*'|\"[^\"]*\"")
# (what it matches outside quoted texts, what it becomes, why)
_SLIPS = (
    (re.compile(r"(?<![=!<>])=(?!=)"), "==", "use == to compare"),
    (re.compile(r"[$€£]\s*(?=[\d.])"), "", "write amounts without the currency sign"),
    (re.compile(r"\s*&&\s*"), " and ", "write 'and' for &&"),
    (re.compile(r"\s*\|\|\s*"), " or ", "write 'or' for ||"),
)


def expression_hint(expr: str) -> str:
    """What an expression that does not parse most likely meant ('=' for '==', '$100' for 100, '&&' for
    and; quoted texts left alone), with the corrected expression when that parses. '' when none applies."""
    fixed = expr
    why: list[str] = []
    for pattern, new, reason in _SLIPS:
        if pattern.search(_blanked(fixed)):
            fixed, why = _replace(fixed, pattern, new), [*why, reason]
    if not why:
        return ""
    try:
        expressions.parse(fixed)
    except ExpressionError:
        return "; " + ", ".join(why)
    return "; " + ", ".join(why) + f": {quoted(fixed)}"


def _blanked(expr: str) -> str:
    """`expr` with each quoted text replaced by as many '_' (positions kept, nothing a slip matches)."""
    return _TEXT.sub(lambda m: "_" * len(m.group()), expr)


def _replace(expr: str, pattern: re.Pattern[str], new: str) -> str:
    """`expr` with the matches of `pattern` outside its quoted texts replaced by `new`."""
    out, last = [], 0
    for m in pattern.finditer(_blanked(expr)):
        out += [expr[last:m.start()], new]
        last = m.end()
    return "".join([*out, expr[last:]])


def _unwrap(annotation: Any) -> list[Any]:
    """The types an annotation may hold (Optional and unions opened)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return [t for arg in typing.get_args(annotation) for t in _unwrap(arg)]
    return [annotation]


def annotation_at(root: type[BaseModel], loc: tuple[Any, ...]) -> Any:
    """The annotation of the value at `loc` (e.g. ('rules', 2, 'examples', 0) → str), or None when the path
    leaves the schema."""
    current: Any = root
    for part in loc:
        nxt = None
        for option in _unwrap(current):
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
    return current


def model_at(root: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The pydantic model that validates the mapping at `loc` (e.g. ('rules', 2) → Rule), or None."""
    found = [t for t in _unwrap(annotation_at(root, loc)) if isinstance(t, type) and issubclass(t, BaseModel)]
    return found[0] if found else None


_MEANT_BOOL = {**dict.fromkeys(("true", "t", "yes", "y", "on", "1"), "true"),
               **dict.fromkeys(("false", "f", "no", "n", "off", "0"), "false")}


def bool_hint(key: Any, given: Any) -> str:
    """What to write for a boolean setting given another value: booleans are strict (models.agent), so a quoted
    "off" is refused rather than silently read as false (YAML's unquoted yes/no/on/off are booleans already)."""
    key = key if isinstance(key, str) else "the setting"
    if isinstance(given, str):
        meant = _MEANT_BOOL.get(given.strip().lower())
        if meant:
            other = "false" if meant == "true" else "true"
            return f": {quoted(given)} is read as a text, not as {meant}; write {key}: {meant} (or {other}), without quotes"
        return f": {quoted(given)} is a text, not a boolean; write {key}: true or {key}: false, without quotes"
    return f"; write {key}: true or {key}: false"


def schema_hint(root: type[BaseModel], error: Mapping[str, Any]) -> str:
    """A did-you-mean for one pydantic error: an unknown key, a value outside an enum / Literal, a boolean given as text."""
    loc, kind = tuple(error.get("loc", ())), error.get("type")
    if kind == "bool_type":
        return bool_hint(loc[-1] if loc else None, error.get("input"))
    if kind == "extra_forbidden" and loc and isinstance(loc[-1], str):
        model = model_at(root, loc[:-1])
        return did_you_mean(loc[-1], model.model_fields) if model else ""
    if kind in ("enum", "literal_error") and isinstance(error.get("input"), str):
        expected = re.findall(r"'([^']*)'", str((error.get("ctx") or {}).get("expected", "")))
        return did_you_mean(error["input"], expected) or synonym_hint(error["input"], expected)
    return ""


def meant(name: Any, candidates: Iterable[str], known: str = "") -> str:
    """' (did you mean 'x'?)' when a candidate is close to `name`; else ' (<known>: a, b, …)' when `known` names
    the list (every candidate shown), else ''. For messages that end in the name ('unknown key 'x' (…)')."""
    pool = sorted({c for c in candidates if isinstance(c, str)})
    close = closest(name, pool) if isinstance(name, str) else None
    if close:
        return f" (did you mean {close!r}?)"
    return f" ({known}: {', '.join(pool)})" if known and pool else ""
