"""Agents written in a test with a few exact edits: validated (shared by the validate tests of the agents that
newcomers and testers wrote, each test naming only what it changes), or the tutorial agent in four languages."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

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


TUTORIAL = Path(__file__).resolve().parents[1] / "examples" / "tutorial"


def tutorial_in_four_languages(folder: Path) -> Path:
    """The tutorial agent declaring en/es/de/fr with no translations (its texts stay English), written to `folder`."""
    shutil.copy(TUTORIAL / "tools.py", folder / "tools.py")
    doc = yaml.safe_load((TUTORIAL / "agent.yaml").read_text(encoding="utf-8"))
    doc["languages"] = ["en", "es", "de", "fr"]
    doc.pop("translations", None)
    (folder / "agent.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return folder / "agent.yaml"
