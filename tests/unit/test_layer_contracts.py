"""The layer contracts `make lint` checks (import-linter, [tool.importlinter] in pyproject.toml) hold on the
engine, and a forbidden import breaks them: checked on a copy of the package with one import added."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint(package_parent: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    return subprocess.run([str(LINT_IMPORTS), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          cwd=package_parent, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def engine_copy(tmp_path_factory) -> Path:
    parent = tmp_path_factory.mktemp("layers")
    shutil.copytree(ROOT / "functions" / "focal", parent / "focal", ignore=shutil.ignore_patterns("__pycache__"))
    return parent


def test_the_engine_keeps_every_contract(engine_copy):
    done = _lint(engine_copy)
    assert done.returncode == 0 and "0 broken" in done.stdout, done.stdout[-2000:]


@pytest.mark.parametrize(("module", "line", "contract"), [
    ("sensing/offline.py", "import focal.pipeline.runner", "Building blocks never import"),
    ("config/hints.py", "import focal.adapters.sqlite_store", "Config never imports adapters"),
    ("models/session.py", "import focal.dialogue.flow", "Models and ports import no"),
    ("stages/route.py", "import focal.adapters.python_tools", "Stages never import adapters"),
])
def test_a_forbidden_import_breaks_its_contract(engine_copy, module, line, contract):
    target = engine_copy / "focal" / module
    original = target.read_text()
    target.write_text(original + f"\n{line}  # added by the test\n")
    try:
        done = _lint(engine_copy)
    finally:
        target.write_text(original)
    assert done.returncode != 0, done.stdout[-2000:]
    broken = [ln for ln in done.stdout.splitlines() if ln.endswith("BROKEN")]
    assert any(contract in ln for ln in broken), done.stdout[-2000:]
