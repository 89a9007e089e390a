"""Load an agent definition from YAML into `AgentConfig`, reporting every problem with its path."""

from __future__ import annotations

import copy
import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from focal.config.hints import schema_hint
from focal.config.limits import AGENT_FILE_LIMITS
from focal.config.problems import Problem, format_path, line_of
from focal.config.size_checks import size_problems
from focal.config.validate import semantic_problems
from focal.config.yaml_readings import Reading, explains, hint, readings, warnings
from focal.errors import ConfigError
from focal.models.agent import AgentConfig
from focal.tool_files import read_regular_file


class AgentConfigInvalid(ConfigError):
    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem(s)\n{lines}")


# Limits checked before any value is constructed (agent files reach the publish route): focal.config.limits.
MAX_AGENT_BYTES = AGENT_FILE_LIMITS.file_bytes
MAX_YAML_DEPTH = AGENT_FILE_LIMITS.depth
# Nodes that aliases may add beyond the ones written out: anchors for shared settings stay far below it,
# while a few hundred bytes of nested aliases ("billion laughs") would otherwise expand to billions.
ALIAS_EXPANSION_BUDGET = AGENT_FILE_LIMITS.alias_nodes
# Characters of the document once its aliases are expanded: one long text aliased a thousand times is few
# nodes but gigabytes of text to embed and match.
MAX_EXPANDED_CHARS = AGENT_FILE_LIMITS.expanded_chars


class _YamlLimit(yaml.YAMLError):
    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.problem, self.line = message, line


class _LineLoader(yaml.SafeLoader):
    """SafeLoader that remembers the line of every mapping key, for error messages, and refuses nesting
    deeper than MAX_YAML_DEPTH while composing (the composer and constructor recurse per level)."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _YamlLimit(f"the document nests more than {MAX_YAML_DEPTH} levels deep", self.peek_event().start_mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a node graph whose aliases expand it by more than ALIAS_EXPANSION_BUDGET nodes or to more than
    MAX_EXPANDED_CHARS characters, nest it deeper than MAX_YAML_DEPTH, or that refers to itself; measured on the
    composed graph (each distinct node once, iteratively), before anything is constructed."""
    cap = 10**15  # keeps the counts small integers whatever the document
    sizes: dict[int, int] = {}
    chars: dict[int, int] = {}
    depths: dict[int, int] = {}
    open_nodes: set[int] = set()  # the current path from the root
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            children = _children(node)
            sizes[key] = min(cap, 1 + sum(sizes[id(child)] for child in children))
            own = len(node.value) if isinstance(node, yaml.ScalarNode) else 0
            chars[key] = min(cap, own + sum(chars[id(child)] for child in children))
            depths[key] = 1 + max((depths[id(child)] for child in children), default=0)
            if depths[key] > MAX_YAML_DEPTH:
                raise _YamlLimit(f"the document nests more than {MAX_YAML_DEPTH} levels deep through aliases", node.start_mark.line + 1)
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise _YamlLimit("the document refers to itself through an alias", node.start_mark.line + 1)
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    written = len(sizes)
    if sizes[id(root)] > written + ALIAS_EXPANSION_BUDGET:
        raise _YamlLimit(f"the document expands to more than {written + ALIAS_EXPANSION_BUDGET} nodes through aliases "
                         f"({written} written out); use fewer or smaller aliases")
    if chars[id(root)] > MAX_EXPANDED_CHARS:
        raise _YamlLimit(f"the document expands to {chars[id(root)]} characters through aliases; the limit is "
                         f"{MAX_EXPANDED_CHARS}: use fewer or smaller aliases")


def safe_load_bounded(text: str) -> Any:
    """Parse YAML with the agent loader's limits (depth, alias expansion); raises yaml.YAMLError."""
    return read_bounded(text)[0]


def read_bounded(text: str) -> tuple[Any, list[Reading]]:
    """`safe_load_bounded`, with the unquoted values YAML read as something other than text (yaml_readings)."""
    loader = _LineLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        _check_expansion(node)
        return loader.construct_document(node), readings(node)
    finally:
        loader.dispose()


_MERGE_TAG = "tag:yaml.org,2002:merge"
_ANNOTATIONS = ("__lines__", "__line__", "__duplicates__")  # the loader's, stripped again before validation


def _duplicate_keys(node: yaml.MappingNode) -> list[tuple[str, int, int]]:
    """(key, first line, repeated line) of each key written twice in this mapping. Keys a merge (`<<: *base`)
    brings in are not counted: overriding them is what a merge is for."""
    first: dict[tuple[str, str], int] = {}
    out = []
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
            continue
        key, line = (key_node.tag, key_node.value), key_node.start_mark.line + 1
        if key in first:
            out.append((key_node.value, first[key], line))
        else:
            first[key] = line
    return out


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    duplicates = _duplicate_keys(node)  # before construct_mapping flattens merges into node.value
    mapping = loader.construct_mapping(node, deep=True)
    lines = {}
    for key_node, _ in node.value:
        lines[key_node.value] = key_node.start_mark.line + 1
    mapping["__lines__"] = lines
    mapping["__line__"] = node.start_mark.line + 1
    if duplicates:
        mapping["__duplicates__"] = duplicates
    return mapping


class _Unreadable:
    """A scalar the YAML constructors cannot turn into a value (a 5000-digit number, a 13th month): kept in
    place so that it is reported with its field path, like a schema problem."""

    def __init__(self, reason: str, line: int):
        self.reason, self.line = reason, line


def _unreadable_reason(tag: str, node: yaml.ScalarNode, exc: Exception) -> str:
    kind = tag.rsplit(":", 1)[-1]
    if kind == "int":
        digits = sum(c.isdigit() for c in node.value)
        return f"this number has {digits} digits; at most {sys.get_int_max_str_digits()} can be read"
    shown = node.value if len(node.value) <= 40 else node.value[:40] + "…"
    return f"'{shown}' cannot be read as a {'date' if kind == 'timestamp' else kind}: {exc}"


def _guarded(tag: str) -> Callable[[_LineLoader, yaml.ScalarNode], Any]:
    construct = yaml.SafeLoader.yaml_constructors[tag]

    def build(loader: _LineLoader, node: yaml.ScalarNode) -> Any:
        try:
            return construct(loader, node)
        except (ValueError, OverflowError) as exc:
            return _Unreadable(_unreadable_reason(tag, node, exc), node.start_mark.line + 1)
    return build


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
for _tag in ("int", "float", "timestamp"):
    _LineLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _guarded(f"tag:yaml.org,2002:{_tag}"))


def reading_problems(raw: Any, path: tuple[Any, ...] = (), seen: set[int] | None = None) -> list[Problem]:
    """Duplicate keys and unreadable values, each with its path (a shared anchor reported once)."""
    seen = set() if seen is None else seen
    if isinstance(raw, _Unreadable):
        return [Problem(format_path(path), raw.reason, raw.line)]
    if not isinstance(raw, dict | list) or id(raw) in seen:
        return []
    seen.add(id(raw))
    if isinstance(raw, list):
        return [p for i, item in enumerate(raw) for p in reading_problems(item, (*path, i), seen)]
    out = [Problem(format_path((*path, key)), f"duplicate key '{key}' (lines {first} and {again}): a key may appear "
                   "only once in a mapping, a second one would silently replace the first", again)
           for key, first, again in raw.get("__duplicates__", ())]
    for key, value in raw.items():
        if isinstance(key, _Unreadable):
            out.append(Problem(format_path(path), key.reason, key.line))
        elif key not in _ANNOTATIONS:
            out += reading_problems(value, (*path, key), seen)
    return out


def _strip_lines(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_lines(v) for k, v in value.items() if k not in _ANNOTATIONS}
    if isinstance(value, list):
        return [_strip_lines(v) for v in value]
    return value


@dataclass
class LoadedAgent:
    config: AgentConfig | None
    raw: Any
    problems: list[Problem]
    base_dir: str | None = None  # the agent file's folder (set on `config` too when it loaded)
    warnings: list[Problem] = field(default_factory=list)  # values YAML read otherwise than written (yaml_readings)


def stripped(raw: Any) -> Any:
    """The document without the loader's line annotations (what the models validate)."""
    return _strip_lines(raw)


def parse_agent_text(text: str, source: str = "<agent>", base_dir: str | None = None) -> LoadedAgent:
    """Parse YAML text; never raises for bad input, returns the problems instead. The same text read again in a
    process (the config store, `focal test`'s suite, a reload, a copy of the file in another folder) is parsed once:
    the kept result is a pure function of the text, and each caller gets its own deep copy, in its own folder, to
    change as it likes."""
    kept, in_folder = _parsed(text)
    loaded = copy.deepcopy(kept)
    if in_folder:
        loaded.base_dir = base_dir
        if loaded.config is not None:
            loaded.config.base_dir = base_dir
    return loaded


@functools.lru_cache(maxsize=32)
def _parsed(text: str) -> tuple[LoadedAgent, bool]:
    """The text's reading, and whether it reads as an agent file's mapping (it then takes the caller's folder)."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_AGENT_BYTES:
        too_big = Problem("<yaml>", f"the agent file is {size} bytes; the limit is {MAX_AGENT_BYTES}")
        return LoadedAgent(None, None, [too_big]), False
    try:
        raw, found = read_bounded(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else getattr(exc, "line", None)
        reason = getattr(exc, "problem", None) or str(exc)
        message = reason if isinstance(exc, _YamlLimit) else f"YAML syntax error: {reason}"
        return LoadedAgent(None, None, [Problem("<yaml>", message, line)]), False
    if not isinstance(raw, dict):
        not_mapping = Problem("<root>", "the agent file must be a mapping (key: value) at the top")
        return LoadedAgent(None, raw, [not_mapping]), False
    oversized = size_problems(raw, _ANNOTATIONS)
    if oversized:  # nothing more is read from it: no schema, no repaired partial agent (focal validate)
        return LoadedAgent(None, None, oversized), True
    unread = reading_problems(raw)
    if unread:  # a value was lost or replaced: a schema check would judge a document nobody wrote
        return LoadedAgent(None, raw, unread), True
    at = {r.path: r for r in found}
    try:
        config = AgentConfig.model_validate(_strip_lines(raw))
    except ValidationError as exc:
        problems = [_schema_problem(raw, err, at.get(tuple(err["loc"]))) for err in exc.errors()]
        refused = {tuple(err["loc"]) for err in exc.errors()}
        return LoadedAgent(None, raw, problems, None, warnings(AgentConfig, raw, found, refused)), True
    return LoadedAgent(config, raw, [], None, warnings(AgentConfig, raw, found, set())), True


def _schema_problem(raw: Any, err: Any, reading: Reading | None) -> Problem:
    """A schema error with its did-you-mean, or what YAML read the refused value as when it was unquoted."""
    why = f": {hint(reading)}" if reading is not None and explains(AgentConfig, reading) else schema_hint(AgentConfig, err)
    return Problem(format_path(err["loc"]), err["msg"] + why, line_of(raw, err["loc"]))


def load_agent_file(path: str | Path) -> LoadedAgent:
    p = Path(path)
    if p.is_dir():
        p = p / "agent.yaml"
    try:
        text = read_regular_file(p, MAX_AGENT_BYTES).decode("utf-8")
    except OSError as exc:
        return LoadedAgent(None, None, [Problem(str(p), f"cannot read file: {exc.strerror or exc}")])
    except UnicodeDecodeError as exc:
        return LoadedAgent(None, None, [Problem(str(p), f"cannot read file: not UTF-8 text ({exc.reason} at byte {exc.start})")])
    return parse_agent_text(text, str(p), str(p.parent.resolve()))


def load_agent(path: str | Path) -> AgentConfig:
    """Load and fully validate (schema and cross-references); raise AgentConfigInvalid listing every problem."""

    loaded = load_agent_file(path)
    problems = list(loaded.problems)
    if loaded.config is not None:
        problems += semantic_problems(loaded.config, loaded.raw)
    if problems:
        raise AgentConfigInvalid(str(path), problems)
    assert loaded.config is not None
    return loaded.config


def checked_agent(loaded: LoadedAgent, source: str) -> AgentConfig:
    """The parsed agent after the cross-field checks; raise AgentConfigInvalid listing every problem."""
    problems = list(loaded.problems)
    if loaded.config is not None:
        problems += semantic_problems(loaded.config, loaded.raw)
    if problems:
        raise AgentConfigInvalid(source, problems)
    assert loaded.config is not None
    return loaded.config


def agent_from_text(text: str, source: str, base_dir: str | None = None) -> AgentConfig:
    return checked_agent(parse_agent_text(text, source, base_dir), source)
