"""`focal validate` as one gate: every problem of every pass in one run, sorted by line.

When the schema rejects the file, the cross-field checks still run: the document is repaired just
enough to validate (a wrong value removed so its default applies, a missing or unusable one replaced
by a placeholder; list positions never move, so paths and lines stay those of the file) and
`semantic_problems` runs on the result. What the repair itself could cause is dropped: problems at a
repaired path or below it, in the fields that depend on a repaired one (a rule's `scope_id` on its
`scope`, a tool's kind-specific fields on its `kind`, ...), any message naming a placeholder, and the
findings that claim something of the whole document (a value nothing fills, a slot nothing reads).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from focal.config.loader import load_agent_file, stripped
from focal.config.problems import Problem, format_path
from focal.config.validate import semantic_problems, semantic_warnings
from focal.config.validate_tools import OUTPUT_SLIP
from focal.config.validate_values import NEVER_FILLED, UNREAD
from focal.models.agent import AgentConfig

PLACEHOLDER = "__focal_placeholder__"
_DELETE = object()
_CANDIDATES: tuple[Any, ...] = (_DELETE, PLACEHOLDER, 0, False, [], {})
MAX_ROUNDS = 24
# Findings that hold only of the whole document as written (validate_values, validate_tools): not
# reported from a repaired one, where a removed output or source would make them up.
WHOLE_DOCUMENT = (NEVER_FILLED, UNREAD, OUTPUT_SLIP)
# A repaired field → the sibling fields whose checks read it ("" = the entry itself).
DEPENDENT: dict[str, tuple[str, ...]] = {
    "scope": ("scope_id",),
    "scope_id": ("scope",),  # a removed scope_id is not a missing one
    "kind": ("entrypoint", "method", "url", "body", "headers", "function", "retries"),
    "field_type": ("allowed_values",),
    "is_hard_constraint": ("", "guarded_tool_ids", "enforcement_expression", "subjective"),
    "subjective": ("",),
    "enforcement_expression": ("", "guarded_tool_ids"),
    "guarded_tool_ids": ("", "enforcement_expression"),
    "side_effect": ("retries",),
    "idempotent": ("retries",),
    "input": ("url", "body"),
    "steps": ("entry_step_id",),
    "requires_confirmation": ("action",),  # flow_warnings: an action at a step that does not ask
    "confirmation_prompt": ("requires_confirmation",),  # flow_warnings: a confirmation without its question
    "weights": (),
}


@dataclass
class GateResult:
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    config: AgentConfig | None = None  # the agent, when it loads without problems


def _parent(doc: Any, loc: tuple[Any, ...]) -> Any:
    node = doc
    for part in loc:
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return None
    return node if isinstance(node, dict | list) else None


def _apply(parent: Any, key: Any, candidate: Any, missing: bool) -> bool:
    if candidate is _DELETE:
        if missing or not isinstance(parent, dict) or key not in parent:
            return False
        del parent[key]
        return True
    if isinstance(parent, list) and not (isinstance(key, int) and 0 <= key < len(parent)):
        return False
    if isinstance(parent, dict) and not isinstance(key, str):
        return False
    parent[key] = copy.deepcopy(candidate)
    return True


def repaired_config(raw: dict[str, Any], base_dir: str | None) -> tuple[AgentConfig | None, set[tuple[Any, ...]]]:
    """The agent after the least repair that validates, and the locations repaired; (None, …) if none is found."""
    doc = stripped(raw)
    tried: dict[tuple[Any, ...], int] = {}
    for _ in range(MAX_ROUNDS):
        try:
            config = AgentConfig.model_validate(doc)
        except ValidationError as exc:
            errors = {tuple(e["loc"]): e["type"] == "missing" for e in exc.errors()}
        else:
            config.base_dir = base_dir
            return config, set(tried)
        for loc, missing in errors.items():
            parent = _parent(doc, loc[:-1]) if loc else None
            if parent is None:
                return None, set(tried)
            index = tried.get(loc, -1) + 1
            while index < len(_CANDIDATES) and not _apply(parent, loc[-1], _CANDIDATES[index], missing):
                index += 1
            if index >= len(_CANDIDATES):
                return None, set(tried)
            tried[loc] = index
    return None, set(tried)


def _shadowed(repaired: set[tuple[Any, ...]]) -> tuple[set[str], set[str]]:
    """(paths whose problems are dropped exactly, prefixes under which every problem is dropped)."""
    exact: set[str] = set()
    prefixes: set[str] = set()
    for loc in repaired:
        prefixes.add(format_path(loc))
        if loc and isinstance(loc[-1], str):
            for sibling in DEPENDENT.get(loc[-1], ()):
                item = loc[:-1]
                if sibling:
                    prefixes.add(format_path((*item, sibling)))
                elif item:
                    exact.add(format_path(item))
    return exact, prefixes


def _kept(problem: Problem, exact: set[str], prefixes: set[str]) -> bool:
    if PLACEHOLDER in problem.message or problem.path in exact or any(m in problem.message for m in WHOLE_DOCUMENT):
        return False
    return not any(problem.path == p or problem.path.startswith((p + ".", p + "[")) for p in prefixes)


def by_line(problems: list[Problem]) -> list[Problem]:
    """Sorted by line (problems without one first: they concern the whole file), else in the order found."""
    return sorted(problems, key=lambda p: p.line or 0)


def validate_file(path: str | Path, model: str | None = None) -> GateResult:
    """Every error and warning of an agent file in one pass, each list sorted by line."""
    loaded = load_agent_file(path)
    problems = list(loaded.problems)
    warnings: list[Problem] = list(loaded.warnings)
    config = loaded.config
    if config is not None:
        problems += semantic_problems(config, loaded.raw)
        warnings += semantic_warnings(config, loaded.raw, model=model)
    elif isinstance(loaded.raw, dict):
        partial, repaired = repaired_config(loaded.raw, loaded.base_dir)
        if partial is not None:
            exact, prefixes = _shadowed(repaired)
            seen = {(p.path, p.message) for p in problems}
            problems += [p for p in semantic_problems(partial, loaded.raw)
                         if _kept(p, exact, prefixes) and (p.path, p.message) not in seen]
            warnings += [w for w in semantic_warnings(partial, loaded.raw, model=model) if _kept(w, exact, prefixes)]
    errors = [p for p in problems if p.severity == "error"]
    warnings += [p for p in problems if p.severity == "warning"]
    return GateResult(by_line(errors), by_line(warnings), config if not errors else None)
