"""The engine core never imports cloud SDKs, model providers or runtimes: only `focal.adapters` may."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

FOCAL = Path(__file__).resolve().parents[2] / "functions" / "focal"
FORBIDDEN = ("boto3", "botocore", "opensearchpy", "litellm", "onnxruntime")
CORE = [p for p in FOCAL.rglob("*.py") if "adapters" not in p.relative_to(FOCAL).parts and p.name != "wiring.py"]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


def test_the_core_is_not_empty():
    names = {p.relative_to(FOCAL).parts[0] for p in CORE}
    assert {"models", "stages", "pipeline", "ports.py"} <= names


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(FOCAL)))
def test_core_module_imports_no_sdk(path):
    assert not imported_modules(path) & set(FORBIDDEN)


def test_the_check_would_catch_an_sdk_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import boto3\nfrom litellm import completion\n")
    assert {"boto3", "litellm"} <= imported_modules(bad)


def test_importing_every_stage_loads_no_sdk():
    code = (
        "import sys, importlib\n"
        "from focal.pipeline.definition import STAGE_NAMES\n"
        "import focal.pipeline.runner\n"
        "for s in STAGE_NAMES: importlib.import_module(f'focal.stages.{s}')\n"
        f"print(sorted(m for m in {FORBIDDEN!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
