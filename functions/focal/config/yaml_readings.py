"""What YAML made of the unquoted values of an agent file, where that is not the text the author wrote.

YAML reads an unquoted `2024-05-01` as a date, `yes` / `no` / `on` / `off` as booleans, `010` as the octal
number 8, `1_000` as 1000 and `1:30` as 90. Such a value then differs from what the file shows: an enum of
`[yes, no]` holds two booleans, an id `010` is the number 8. Every plain (unquoted) scalar that YAML read as
something other than text is collected with its path and line, from the composed node graph; then

- where the schema refused the value, its error says what YAML read and to quote it (`hint`);
- where the schema took it, a warning says the same when the value is not what was written (`warnings`):
  a date anywhere (the engine reads dates as 'YYYY-MM-DD' text), a number not written in its plain form
  (`010`, `0x1F`, `1_000`, `1:30`), a yes/no/on/off where no boolean is expected, and any non-text value
  where the field's declared type (`field_type` / `type` beside it) is text (string, id, enum, date).
"""

from __future__ import annotations

import datetime
import types
import typing
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import BaseModel

from focal.config.hints import annotation_at, quoted
from focal.config.problems import Problem, format_path

_TAG = "tag:yaml.org,2002:"
KINDS = ("bool", "int", "float", "timestamp", "null")
TEXT_KINDS = ("string", "id", "enum", "date")  # declared types whose values the engine reads as text
NUMBER_KINDS = ("integer", "number", "money", "percentage")
KEY = "[key]"  # the last part of a mapping key's path (as pydantic names a dict key's error)
MAX_SHOWN = 40


def _value(text: str) -> Any:
    """What YAML makes of a plain scalar written `text` (None when it cannot say)."""
    try:
        return yaml.safe_load(text) if len(text) <= 100 else None
    except (yaml.YAMLError, ValueError, OverflowError):
        return None


@dataclass(frozen=True)
class Reading:
    """One unquoted scalar YAML read as `kind` (not as text): where, and what was written."""

    path: tuple[Any, ...]
    line: int
    text: str
    kind: str

    @property
    def value(self) -> Any:
        return _value(self.text)

    @property
    def is_key(self) -> bool:
        return self.path[-1:] == (KEY,)


def readings(root: yaml.Node) -> list[Reading]:
    """Every plain scalar of the graph resolved to bool, int, float, timestamp or null, each node once (an
    alias is reported where its anchor is written); mapping keys too, as (…, key, '[key]')."""
    out: list[Reading] = []
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, tuple[Any, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            kind = node.tag.removeprefix(_TAG)
            if node.style is None and kind in KINDS:
                out.append(Reading(path, node.start_mark.line + 1, node.value, kind))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((child, (*path, i)) for i, child in enumerate(node.value))
        elif isinstance(node, yaml.MappingNode):
            stack.extend(_pairs(node, path, out))
    return sorted(out, key=lambda r: r.line)


def _pairs(node: yaml.MappingNode, path: tuple[Any, ...], out: list[Reading]) -> list[tuple[yaml.Node, tuple[Any, ...]]]:
    todo: list[tuple[yaml.Node, tuple[Any, ...]]] = []
    for key, value in node.value:
        if key.tag == _TAG + "merge":  # `<<: *base`: the merged keys belong to this mapping
            merged = value.value if isinstance(value, yaml.SequenceNode) else [value]
            todo.extend((m, path) for m in merged)
            continue
        if not isinstance(key, yaml.ScalarNode):
            continue
        name: Any = key.value
        kind = key.tag.removeprefix(_TAG)
        if key.style is None and kind in KINDS:
            name = _value(key.value)  # the key as the document holds it
            out.append(Reading((*path, name, KEY), key.start_mark.line + 1, key.value, kind))
        todo.append((value, (*path, name)))
    return todo


def read_as(reading: Reading) -> str:
    """What YAML made of it, for a person: 'the boolean true', 'the number 8 (a leading 0 makes it octal)', …"""
    value = reading.value
    if reading.kind == "bool":
        return f"the boolean {str(value).lower()}"
    if reading.kind == "null":
        return "null (no value)"
    if reading.kind == "timestamp":
        return "a date" if not isinstance(value, datetime.datetime) else "a date and time"
    why = ""
    digits = reading.text.lstrip("+-")
    if reading.kind == "int" and digits.startswith("0") and digits[1:2].isdigit():
        why = " (a leading 0 makes it octal)"
    elif ":" in reading.text:
        why = " (YAML 1.1 reads a:b as base 60)"
    return f"the number {value}{why}" if value is not None else "a number"


def hint(reading: Reading) -> str:
    """'YAML read the unquoted … as …; write it in quotes …': what became of this value, and what to write."""
    shown = reading.text if len(reading.text) <= MAX_SHOWN else reading.text[:MAX_SHOWN - 1] + "…"
    if not shown:
        return "YAML read the empty value as null (no value); write the text after the colon, in quotes if in doubt"
    written = f"the unquoted key {shown}" if reading.is_key else f"the unquoted {shown}"
    return f"YAML read {written} as {read_as(reading)}; write it in quotes ({quoted(shown)}) to keep the text as written"


def _accepts(annotation: Any, kind: str) -> bool | None:
    """Whether the schema expects a value of this kind here (None: anything goes)."""
    wanted = {"bool": (bool,), "int": (int,), "float": (float,), "timestamp": (datetime.date,), "null": (type(None),)}[kind]
    options = _types(annotation)
    if any(o is Any for o in options):
        return None
    return any(isinstance(o, type) and issubclass(o, wanted) and not (kind == "int" and o is bool) for o in options)


def _types(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _types(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [t for arg in typing.get_args(annotation) for t in _types(arg)]
    if origin is typing.Literal:
        return [type(v) for v in typing.get_args(annotation)]
    return [annotation]


def explains(model: type[BaseModel], reading: Reading | None) -> bool:
    """Whether this reading is why the schema refused the value: the schema wants text there, so quoting it helps."""
    if reading is None:
        return False
    if reading.is_key:
        return True  # every mapping of the schema has text keys
    return any(isinstance(o, type) and issubclass(o, str) for o in _types(annotation_at(model, reading.path)))


def _plain(reading: Reading) -> bool:
    """Whether the value is written as YAML writes it back (true, 8, 1.5): nothing was changed in reading it."""
    if reading.kind == "bool":
        return reading.text.lower() in ("true", "false")
    if reading.kind == "int":
        return str(reading.value) == reading.text
    if reading.kind == "float":
        return not any(c in reading.text for c in ":_") and not reading.text.lower().lstrip("+-").startswith(".")
    return reading.kind == "null"


def _declared(raw: Any, path: tuple[Any, ...]) -> str | None:
    """The declared type of a `default` (the `field_type` of its field, the `type` of its tool argument), if any."""
    if path[-1:] != ("default",):
        return None
    node = raw
    for part in path[:-1]:
        node = node.get(part) if isinstance(node, dict) else node[part] if isinstance(node, list) and \
            isinstance(part, int) and 0 <= part < len(node) else None
    if not isinstance(node, dict):
        return None
    declared = node.get("field_type", node.get("type"))
    return declared if isinstance(declared, str) else None


def _surprising(reading: Reading, annotation: Any, declared: str | None) -> bool:
    if reading.kind == "null":
        return False
    if reading.kind == "bool" and not _plain(reading):  # yes/no/on/off: fine where a boolean is meant
        return declared != "boolean" if declared is not None else _accepts(annotation, "bool") is not True
    if reading.kind == "timestamp" or not _plain(reading):
        return True
    return declared in TEXT_KINDS  # true, 42 or 1.5 where the declared type is text


def changed_in_reading(found: list[Reading]) -> list[Reading]:
    """The readings that are never what a file means to compare whatever the schema: dates, and numbers not
    written in their plain form (a conversation-test suite, whose values are compared with the turn's)."""
    return [r for r in found if r.kind == "timestamp" or r.kind in ("int", "float") and not _plain(r)]


def warnings(model: type[BaseModel], raw: Any, found: list[Reading], refused: set[tuple[Any, ...]]) -> list[Problem]:
    """A warning for each value the schema took that is not what the file shows (`refused`: the paths of
    schema errors, whose messages carry the hint instead)."""
    out = []
    for reading in found:
        path = reading.path[:-2] if reading.is_key else reading.path
        if reading.path in refused or path in refused:
            continue
        annotation = str if reading.is_key else annotation_at(model, path)
        declared = None if reading.is_key else _declared(raw, path)
        if _surprising(reading, annotation, declared):
            out.append(Problem(format_path(path), hint(reading), reading.line, "warning"))
    return out
