"""Validate an agent written in a test with a few exact edits: shared by the validate tests of the agents that
newcomers and testers wrote (each test names only what it changes)."""

from __future__ import annotations

from pathlib import Path

from focal.config.gate import GateResult, validate_file


def validate_variant(tmp_path: Path, agent: str, tools: str,
                     *replacements: tuple[str, str]) -> tuple[GateResult, str, Path]:
    """Validate `agent` with each (old, new) replaced exactly once, beside `tools` as tools.py: the result, the
    text written, its path."""
    text = agent
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (tmp_path / "tools.py").write_text(tools, encoding="utf-8")
    path = tmp_path / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    return validate_file(path), text, path


def line(text: str, fragment: str) -> int:
    """The 1-based line of `text` that holds `fragment`."""
    return next(i for i, row in enumerate(text.splitlines(), start=1) if fragment in row)
