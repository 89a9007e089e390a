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
        "from focal.turn.definition import STAGE_NAMES\n"
        "import focal.pipeline.runner\n"
        "for s in STAGE_NAMES: importlib.import_module(f'focal.stages.{s}')\n"
        f"print(sorted(m for m in {FORBIDDEN!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- no import circles; building blocks never import a stage --------------------------------------

BUILDING_BLOCKS = ("dialogue", "enforcement", "sensing", "retrieval", "generation", "models", "config")


def focal_imports(path: Path) -> set[str]:
    """Every `focal.*` module a file imports, at module level or inside a function."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("focal"):
            out |= {f"{node.module}.{a.name}" for a in node.names} | {node.module}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("focal")}
    return out


def module_graph() -> dict[str, set[str]]:
    modules = {".".join(p.relative_to(FOCAL.parent).with_suffix("").parts).removesuffix(".__init__"): p
               for p in FOCAL.rglob("*.py")}
    return {name: {m for m in focal_imports(path) if m in modules and m != name} for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_engine_has_no_import_circles():
    assert cycles(module_graph()) == []


def test_the_circle_check_would_catch_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


@pytest.mark.parametrize("block", BUILDING_BLOCKS)
def test_a_building_block_never_imports_a_stage_or_the_runner(block):
    graph = module_graph()
    offenders = {name: sorted(m for m in deps if m.startswith(("focal.stages", "focal.pipeline.runner",
                                                                "focal.pipeline.approval")))
                 for name, deps in graph.items() if name.startswith(f"focal.{block}")}
    assert {k: v for k, v in offenders.items() if v} == {}
