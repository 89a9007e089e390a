"""The size problems of a parsed agent document: texts too long, lists too long, too much to embed.

Run on the constructed document before any model is built from it (the alias expansion is bounded before
construction, so walking every path here is bounded too); each problem names the field and the limit.
"""

from __future__ import annotations

from typing import Any

from focal.config.limits import AGENT_FILE_LIMITS, EMBEDDED_LISTS, AgentFileLimits
from focal.config.problems import Problem, format_path

MAX_REPORTED = 20  # a file over the limits everywhere is told so, not in ten thousand lines


def _shown(key: str) -> str:
    return key if len(key) <= 40 else key[:40] + "…"


def _embedded(raw: Any, pattern: tuple[str, ...]) -> int:
    nodes = [raw]
    for part in pattern:
        if part == "*":
            nodes = [item for n in nodes if isinstance(n, list) for item in n]
        else:
            nodes = [n[part] for n in nodes if isinstance(n, dict) and part in n]
    return sum(len(n) for n in nodes if isinstance(n, list))


def embedded_texts(raw: Any) -> int:
    """How many texts the document gives the embedder (rules, rule examples, entry examples, extra exemplars)."""
    return sum(_embedded(raw, pattern) for pattern in EMBEDDED_LISTS)


def size_problems(raw: Any, annotations: tuple[str, ...] = (), limits: AgentFileLimits = AGENT_FILE_LIMITS) -> list[Problem]:
    """Every text over `limits.text_chars`, every list or mapping over its limit (`limits.items_limit`), and a
    document embedding more than `limits.embedded_texts`; `annotations` are the loader's own keys, skipped."""
    out: list[Problem] = []
    over = 0
    stack: list[tuple[Any, tuple[Any, ...], int | None]] = [(raw, (), None)]

    def add(path: tuple[Any, ...], message: str, line: int | None) -> None:
        nonlocal over
        over += 1
        if len(out) < MAX_REPORTED:
            out.append(Problem(format_path(path), message, line))

    while stack:
        value, path, line = stack.pop()
        if isinstance(value, str):
            if len(value) > limits.text_chars:
                add(path, f"this text has {len(value)} characters; the limit is {limits.text_chars}", line)
            continue
        if isinstance(value, dict):
            lines = value.get("__lines__", {})
            line = value.get("__line__", line)
            entries = [(k, v) for k, v in value.items() if k not in annotations]
            children = [(v, (*path, _shown(k) if isinstance(k, str) else k), lines.get(k, line)) for k, v in entries]
            for key in (k for k, _ in entries if isinstance(k, str) and len(k) > limits.text_chars):
                add((*path, _shown(key)), f"this key has {len(key)} characters; the limit is {limits.text_chars}",
                    lines.get(key, line))
        elif isinstance(value, list):
            entries = value
            children = [(item, (*path, i), item.get("__line__", line) if isinstance(item, dict) else line)
                        for i, item in enumerate(value)]
        else:
            continue
        limit, what = limits.items_limit(path)
        if len(entries) > limit:
            add(path, f"{len(entries)} {what}; the limit is {limit}", line)
        stack.extend(reversed(children))
    embedded = embedded_texts(raw)
    if embedded > limits.embedded_texts:
        add((), f"the agent has {embedded} texts to embed (rules, rule examples, entry examples, extra exemplars); "
                f"the limit is {limits.embedded_texts}", None)
    if over > len(out):
        out.append(Problem("<root>", f"and {over - len(out)} more values over the limits"))
    return out
