"""A problem found in an agent file: its path, its message, its line (shared by the loader and validate)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class Problem:
    path: str
    message: str
    line: int | None = None
    severity: Literal["error", "warning"] = "error"  # warnings do not stop an agent from loading

    def __str__(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        return f"{self.path}: {self.message}{where}"


def format_path(parts: tuple[Any, ...] | list[Any]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "<root>"


def line_of(raw: Any, parts: tuple[Any, ...] | list[Any]) -> int | None:
    """Best-effort line number of a path in the raw (line-annotated) document."""
    node, line = raw, None
    for part in parts:
        if isinstance(node, dict):
            if isinstance(part, str) and part in node.get("__lines__", {}):
                line = node["__lines__"][part]
            node = node.get(part) if isinstance(part, str) else None
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            if isinstance(node, dict):
                line = node.get("__line__", line)
        else:
            break
    return line
