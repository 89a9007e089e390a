"""Which functions may call a model provider, derived from the engine's code (not a hand-kept list).

A function may call a model when the module it runs imports, directly or through other `focal`
modules, `focal.model_calls` (the one place a `LanguageModel.complete` call is made and traced).
Imports are read with `ast` from functions/ (module level and inside functions alike: a lazy import
still runs), without importing anything. Packages count too: importing `focal.a.b` runs
`focal/__init__.py` and `focal/a/__init__.py`.

    model_calling_stages()      {"sensor", "route", ...}: the stages of focal.turn.definition.STAGES
    reaches(module, target)     the import chain from module to target, or None
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from focal_infra.paths import FUNCTIONS

MODEL_MODULE = "focal.model_calls"
# The engine modules each non-stage function runs (a stage function runs focal.stages.<name>).
# focal.pipeline.stage_io imports a stage by name (importlib), which ast cannot follow: answering an
# approval (focal.pipeline.approval_answer → run_pipeline from RESUME_STAGE) runs the stages from
# RESUME_STAGE on, named here from the pipeline definition.
def _entry_modules() -> dict[str, tuple[str, ...]]:
    from focal.turn.definition import RESUME_STAGE, STAGE_NAMES

    resumed = STAGE_NAMES[STAGE_NAMES.index(RESUME_STAGE):]
    return {
        "fallback": ("focal.stages.fallback",),
        "approvals": ("focal.pipeline.approval_workflow", *(f"focal.stages.{n}" for n in resumed)),
        "publish": ("focal.retrieval.publish",),
    }


def _module_file(name: str, root: Path) -> Path | None:
    path = root.joinpath(*name.split("."))
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    return None


@cache
def imports_of(name: str, root: Path = FUNCTIONS) -> frozenset[str]:
    """The `focal` modules (and packages) that importing `name` may run."""
    file = _module_file(name, root)
    if file is None:
        raise ModuleNotFoundError(f"{name} is not a module under {root}")
    package = name if file.name == "__init__.py" else name.rpartition(".")[0]
    named: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(), str(file))):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            named.add(module)
            named.update(f"{module}.{alias.name}" for alias in node.names)  # `from pkg import submodule`
    found: set[str] = set()
    for dotted in named:
        if dotted.split(".")[0] != "focal":
            continue
        parts = dotted.split(".")
        for i in range(1, len(parts) + 1):
            candidate = ".".join(parts[:i])
            if _module_file(candidate, root):
                found.add(candidate)
    found.discard(name)
    return frozenset(found)


def reaches(start: str, target: str = MODEL_MODULE, root: Path = FUNCTIONS) -> list[str] | None:
    """The shortest import chain [start, ..., target], or None when `start` never imports `target`."""
    parents: dict[str, str | None] = {start: None}
    queue = [start]
    while queue:
        current = queue.pop(0)
        if current == target:
            chain = [current]
            while parents[chain[-1]] is not None:
                chain.append(parents[chain[-1]])  # type: ignore[arg-type]
            return chain[::-1]
        for dep in sorted(imports_of(current, root)):
            if dep not in parents:
                parents[dep] = current
                queue.append(dep)
    return None


def entry_modules(function: str) -> tuple[str, ...]:
    return _entry_modules().get(function, (f"focal.stages.{function}",))


def model_chain(function: str, root: Path = FUNCTIONS) -> list[str] | None:
    """How `function` (a stage name, or fallback / approvals / publish) reaches focal.model_calls."""
    for module in entry_modules(function):
        chain = reaches(module, MODEL_MODULE, root)
        if chain:
            return chain
    return None


def calls_models(function: str, root: Path = FUNCTIONS) -> bool:
    return model_chain(function, root) is not None


def model_calling_stages(names: tuple[str, ...] | None = None, root: Path = FUNCTIONS) -> frozenset[str]:
    from focal.turn.definition import STAGE_NAMES

    return frozenset(n for n in (names or STAGE_NAMES) if calls_models(n, root))
