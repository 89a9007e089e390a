"""The layer contracts `make lint` checks (import-linter: pyproject.toml and infra/importlinter.toml) hold on the
engine, the handlers and the CDK app, and each kind of forbidden import breaks them: checked on a copy of the
three packages with one import (or one module) added."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = (ROOT / "functions" / "focal", ROOT / "functions" / "handlers", ROOT / "infra" / "focal_infra")
CONFIGS = (ROOT / "pyproject.toml", ROOT / "infra" / "importlinter.toml")

CYCLES = "No import cycles"
ENGINE_LAYERS = "Engine layers"
INFRA_LAYERS = "CDK app layers"
ROOTS = "The CDK app above the Lambda handlers above the engine"


def _lint(package_parent: Path) -> subprocess.CompletedProcess[str]:
    """Both configurations `make lint` checks, on the packages under `package_parent`: one result, the reports joined."""
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    runs = [subprocess.run([str(LINT_IMPORTS), "--config", str(config), "--no-cache"], cwd=package_parent, env=env,
                           capture_output=True, text=True, timeout=600) for config in CONFIGS]
    return subprocess.CompletedProcess([r.args for r in runs], max(r.returncode for r in runs),
                                       "\n".join(r.stdout for r in runs), "\n".join(r.stderr for r in runs))


def _broken(output: str) -> list[str]:
    """The names of the contracts the report's summary calls broken (a long name wraps onto the next line)."""
    names = []
    for report in output.split("Analyzed ")[1:]:
        summary = report.split("dependencies.", 1)[-1].split("Contracts:", 1)[0]
        verdicts = re.finditer(r"\s*(.+?) (KEPT|BROKEN)(?: \([^)]*\))?(?=\s|$)", " ".join(summary.split()))
        names += [m.group(1).strip("- ") for m in verdicts if m.group(2) == "BROKEN"]
    return names


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory) -> Path:
    parent = tmp_path_factory.mktemp("layers")
    for package in PACKAGES:
        shutil.copytree(package, parent / package.name, ignore=shutil.ignore_patterns("__pycache__"))
    return parent


def test_the_engine_keeps_every_contract(tree_copy):
    done = _lint(tree_copy)
    assert done.returncode == 0 and done.stdout.count(" 0 broken.") == len(CONFIGS), done.stdout[-3000:]


def test_every_kind_of_contract_is_declared():
    """The contracts these tests break are the ones pyproject.toml declares (a renamed contract fails here)."""
    config = "".join(path.read_text() for path in CONFIGS)
    for name in (CYCLES, ENGINE_LAYERS, INFRA_LAYERS, ROOTS, "Building blocks never import", "Config never imports adapters",
                 "Models and ports import no", "Stages never import adapters"):
        assert f'name = "{name}' in config


# (file in the copy, code appended to it, contract that must break, what the report must name)
FORBIDDEN = [
    ("focal/sensing/offline.py", "import focal.pipeline.runner", "Building blocks never import",
     "focal.sensing.offline -> focal.pipeline.runner"),
    ("focal/config/hints.py", "import focal.adapters.sqlite_store", "Config never imports adapters",
     "focal.config.hints -> focal.adapters.sqlite_store"),
    ("focal/models/session.py", "import focal.dialogue.flow", "Models and ports import no",
     "focal.models.session -> focal.dialogue.flow"),
    ("focal/stages/route.py", "import focal.adapters.python_tools", "Stages never import adapters",
     "focal.stages.route -> focal.adapters.python_tools"),
    # a lower layer importing a higher one: the building block sensing reading a flow the dialogue runs
    ("focal/sensing/lexicon.py", "import focal.dialogue.flow", ENGINE_LAYERS, "focal.sensing.lexicon -> focal.dialogue.flow"),
    # two members of one layer that must stay independent
    ("focal/retrieval/rules.py", "import focal.generation.prompt", ENGINE_LAYERS,
     "focal.retrieval.rules -> focal.generation.prompt"),
    # stages below the pipeline that walks them
    ("focal/stages/persist.py", "import focal.pipeline.stage_io", ENGINE_LAYERS,
     "focal.stages.persist -> focal.pipeline.stage_io"),
    # the engine importing the CDK app
    ("focal/wiring.py", "import focal_infra.paths", ROOTS, "focal.wiring -> focal_infra.paths"),
    # a CDK module below the stack importing it
    ("focal_infra/operations.py", "import focal_infra.stack", INFRA_LAYERS, "focal_infra.operations -> focal_infra.stack"),
]


@pytest.mark.parametrize(("module", "code", "contract", "named"), FORBIDDEN, ids=[f[0] + ":" + f[2] for f in FORBIDDEN])
def test_a_forbidden_import_breaks_its_contract(tree_copy, module, code, contract, named):
    done = _appended(tree_copy, module, code)
    assert done.returncode != 0, done.stdout[-3000:]
    assert any(contract in line for line in _broken(done.stdout)), done.stdout[-3000:]
    assert named in done.stdout, done.stdout[-3000:]


# Circles, however the import is written: at module level, only for a type annotation, inside a function.
CIRCLES = [
    ("focal/sensing/lexicon.py", "import focal.dialogue.flow", ("focal", ".sensing", ".dialogue")),
    ("focal/dialogue/flow.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import focal.stages.route",
     ("focal", ".dialogue", ".stages")),
    ("focal/text/views.py", "def _late():\n    import focal.enforcement.reading", ("focal", ".text", ".enforcement")),
    ("focal/dialogue/flow.py", "import focal.dialogue.resolution", ("focal.dialogue", ".flow", ".resolution")),
    ("focal_infra/operations.py", "import focal_infra.stack", ("focal_infra", ".operations", ".stack")),
    ("handlers/_stage.py", "import handlers.sensor", ("handlers", "._stage", ".sensor")),
]


@pytest.mark.parametrize(("module", "code", "circle"), CIRCLES, ids=[c[0] + ":" + c[2][1] for c in CIRCLES])
def test_an_import_circle_breaks_the_cycle_contract(tree_copy, module, code, circle):
    package, one, other = circle
    done = _appended(tree_copy, module, code)
    assert done.returncode != 0, done.stdout[-3000:]
    assert any(CYCLES in line for line in _broken(done.stdout)), done.stdout[-3000:]
    assert f"No cycles are allowed in {package}." in done.stdout, done.stdout[-3000:]
    # the dependency it names as the one to remove is one of the circle's two directions
    assert f"- {one} -> {other} " in done.stdout or f"- {other} -> {one} " in done.stdout, done.stdout[-3000:]


def test_a_module_placed_in_no_layer_breaks_the_layers(tree_copy):
    """Every package and module of the engine has its layer: a new one must be placed in pyproject.toml."""
    new = tree_copy / "focal" / "unplaced.py"
    new.write_text('"""A module nobody placed in a layer."""\n')
    try:
        done = _lint(tree_copy)
    finally:
        new.unlink()
    assert done.returncode != 0, done.stdout[-3000:]
    assert any(ENGINE_LAYERS in line for line in _broken(done.stdout)), done.stdout[-3000:]
    assert "focal.unplaced" in done.stdout, done.stdout[-3000:]


def _appended(tree: Path, module: str, code: str) -> subprocess.CompletedProcess[str]:
    target = tree / module
    original = target.read_text()
    target.write_text(original + f"\n{code}  # added by the test\n")
    try:
        return _lint(tree)
    finally:
        target.write_text(original)
