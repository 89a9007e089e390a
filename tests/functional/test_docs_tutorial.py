"""The tutorial's agent (examples/tutorial) is what the tutorial page shows and it works: the page includes the
shipped files through snippets (`--8<--`), every line of the agent and its tests lies in a part the page
includes, the file validates without a problem or a warning, and its suite passes."""

from __future__ import annotations

import re
from pathlib import Path

from focal.cli.conversation_tests import format_report, run_suite
from focal.config.gate import validate_file

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "examples" / "tutorial"
PAGE = ROOT / "docs" / "tutorial" / "first-agent.md"
INCLUDE = re.compile(r'^--8<-- "(?P<file>[^":]+)(?::(?P<section>[\w-]+))?"$', re.M)
MARKER = re.compile(r"--8<-- \[(?P<kind>start|end):(?P<name>[\w-]+)\]")


def _included() -> dict[str, set[str | None]]:
    """file → the sections the page includes (None: the whole file)."""
    found: dict[str, set[str | None]] = {}
    for m in INCLUDE.finditer(PAGE.read_text(encoding="utf-8")):
        found.setdefault(m["file"], set()).add(m["section"])
    return found


def _lines_outside(path: Path, sections: set[str | None]) -> list[str]:
    """The lines of `path` that no included section shows (markers aside)."""
    if None in sections:
        return []
    outside, current = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        marker = MARKER.search(line)
        if marker:
            current = marker["name"] if marker["kind"] == "start" else None
            continue
        if current not in sections:
            outside.append(line)
    return outside


def test_the_page_includes_the_shipped_files_and_no_agent_yaml_of_its_own():
    included = _included()
    assert set(included) == {f"examples/tutorial/{n}" for n in ("agent.yaml", "tools.py", "tests.yaml")}
    # every fenced YAML block of the page is an include: none can drift from the files
    for block in re.findall(r"```yaml\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S):
        assert INCLUDE.fullmatch(block.strip()), block


def test_every_line_of_the_agent_and_its_tests_is_shown():
    for file, sections in _included().items():
        left = [line for line in _lines_outside(ROOT / file, sections) if line.strip() and not line.lstrip().startswith("#")]
        assert left == [], f"{file}: lines the tutorial never shows: {left}"


def test_the_tutorial_agent_validates_cleanly():
    gate = validate_file(str(TUTORIAL / "agent.yaml"))
    assert gate.problems == [] and gate.warnings == []


def test_the_tutorial_suite_passes():
    report = run_suite(TUTORIAL / "agent.yaml", TUTORIAL / "tests.yaml")
    assert len(report.conversations) >= 7 and report.passed, "\n" + format_report(report)
