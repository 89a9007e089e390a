"""Load an agent definition from YAML into `AgentConfig`, reporting every problem with its path."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from focal.config.problems import Problem, format_path, line_of
from focal.config.validate import semantic_problems
from focal.errors import ConfigError
from focal.models.agent import AgentConfig


class AgentConfigInvalid(ConfigError):
    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem(s)\n{lines}")


class _LineLoader(yaml.SafeLoader):
    """SafeLoader that remembers the line of every mapping key, for error messages."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    mapping = loader.construct_mapping(node, deep=True)
    lines = {}
    for key_node, _ in node.value:
        lines[key_node.value] = key_node.start_mark.line + 1
    mapping["__lines__"] = lines  # stripped again before validation
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _strip_lines(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_lines(v) for k, v in value.items() if k not in ("__lines__", "__line__")}
    if isinstance(value, list):
        return [_strip_lines(v) for v in value]
    return value


@dataclass
class LoadedAgent:
    config: AgentConfig | None
    raw: Any
    problems: list[Problem]


def parse_agent_text(text: str, source: str = "<agent>", base_dir: str | None = None) -> LoadedAgent:
    """Parse YAML text; never raises for bad input, returns the problems instead."""
    try:
        raw = yaml.load(text, Loader=_LineLoader)  # noqa: S506 - SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else None
        reason = getattr(exc, "problem", None) or str(exc)
        return LoadedAgent(None, None, [Problem("<yaml>", f"YAML syntax error: {reason}", line)])
    if not isinstance(raw, dict):
        return LoadedAgent(None, raw, [Problem("<root>", "the agent file must be a mapping (key: value) at the top")])
    try:
        config = AgentConfig.model_validate(_strip_lines(raw))
    except ValidationError as exc:
        problems = [
            Problem(format_path(err["loc"]), err["msg"], line_of(raw, err["loc"])) for err in exc.errors()
        ]
        return LoadedAgent(None, raw, problems)
    config.base_dir = base_dir
    return LoadedAgent(config, raw, [])


def load_agent_file(path: str | Path) -> LoadedAgent:
    p = Path(path)
    if p.is_dir():
        p = p / "agent.yaml"
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        return LoadedAgent(None, None, [Problem(str(p), f"cannot read file: {exc.strerror}")])
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


def agent_from_text(text: str, source: str, base_dir: str | None = None) -> AgentConfig:

    loaded = parse_agent_text(text, source, base_dir)
    problems = list(loaded.problems)
    if loaded.config is not None:
        problems += semantic_problems(loaded.config, loaded.raw)
    if problems:
        raise AgentConfigInvalid(source, problems)
    assert loaded.config is not None
    return loaded.config
