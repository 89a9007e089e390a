"""What `focal bench coldstart` runs each function in: its handler, memory and layers as the stack defines
them, and the files a Lambda would see.

    functions_from_stack()    one Function per stage (and fallback): memory, layers, SnapStart, model calls
    lambda_layout(folder)     the code asset and the layers built by layers/build.py (bytecode as shipped:
                              .pyc only where the recipes compile it) plus the packages the python3.12
                              runtime provides; run by a CPython 3.12 as `-I -S -B` (read-only, no site)
    venv_layout()             this interpreter and its environment (every package, bytecode as cached here)
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from focal.turn.definition import STAGES

FUNCTIONS = Path(__file__).resolve().parents[2]
ROOT = FUNCTIONS.parent
STACK = ROOT / "infra" / "focal_infra" / "stack.py"
MODELS_ACCESS = ROOT / "infra" / "focal_infra" / "models_access.py"
LAYERS = ROOT / "layers"
DEFAULT_ASSETS = Path(".focal") / "lambda-assets"
# What the python3.12 Lambda runtime itself provides (no layer carries them; see layers/build.py).
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "urllib3", "python-dateutil", "six")
LAYER_RECIPES = ("deps", "auth", "llm", "models")


@dataclass(frozen=True)
class Function:
    name: str
    module: str  # the handler module (Lambda's `handler` setting without `.handler`)
    memory_mb: int
    layers: tuple[str, ...]  # "deps", "auth", "models", "llm", as the stack lists them
    snap_start: bool
    calls_models: bool


@dataclass(frozen=True)
class Layout:
    """How a probe interpreter is started and what it finds on sys.path, per function."""

    label: str
    command: tuple[str, ...]  # the interpreter and its flags
    code: Path
    layer_paths: dict[str, Path]  # layer name → the folder put on sys.path ("models": FOCAL_MODEL_DIR)
    runtime: Path | None = None  # the runtime's own packages (boto3 ...), last on sys.path
    notes: tuple[str, ...] = field(default=())

    def sys_path(self, function: Function) -> list[str]:
        paths = [str(self.code)] + [str(self.layer_paths[n]) for n in function.layers
                                    if n != "models" and n in self.layer_paths]
        if "models" in function.layers and "models_code" in self.layer_paths:  # the models layer's /opt/python
            paths.append(str(self.layer_paths["models_code"]))
        return paths + ([str(self.runtime)] if self.runtime else [])

    def model_dir(self) -> str | None:
        models = self.layer_paths.get("models")
        return str(models) if models else None


def _literal(node: ast.AST | None, default: object) -> object:
    try:
        return ast.literal_eval(node) if node is not None else default
    except ValueError:
        return default


def _profiles(tree: ast.Module) -> dict[str, ast.Call]:
    found: dict[str, ast.Call] = {}
    for node in ast.walk(tree):
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else getattr(node, "target", None)
        name, value = getattr(target, "id", None), getattr(node, "value", None)
        if name == "PROFILES" and isinstance(value, ast.Dict):
            for key, call in zip(value.keys, value.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(call, ast.Call) and call.args:
                    found[str(key.value)] = call
        elif name == "FALLBACK_PROFILE" and isinstance(value, ast.Call) and value.args:
            found["fallback"] = value
    return found


def _min_model_memory(path: Path = MODELS_ACCESS) -> int:
    try:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "MIN_MODEL_MEMORY_MB":
                return int(ast.literal_eval(node.value))
    except (OSError, SyntaxError, ValueError):
        pass
    return 1024


def model_stages() -> frozenset[str]:
    """The functions that may call a model, as the infra derives them from the code."""
    sys.path.insert(0, str(ROOT / "infra"))
    try:
        from focal_infra.model_stages import calls_models, model_calling_stages

        return frozenset(model_calling_stages()) | ({"fallback"} if calls_models("fallback") else frozenset())
    finally:
        sys.path.remove(str(ROOT / "infra"))


def functions_from_stack(stack: Path = STACK) -> tuple[list[Function], str]:
    """Each stage function (and the fallback) as infra/focal_infra/stack.py defines it, read without CDK."""
    try:
        profiles = _profiles(ast.parse(stack.read_text(encoding="utf-8")))
    except (OSError, SyntaxError) as exc:
        raise SystemExit(f"focal bench coldstart: cannot read the function profiles from {stack}: {exc}") from None
    calls, floor = model_stages(), _min_model_memory()
    out = []
    for name in [s.name for s in STAGES] + ["fallback"]:
        call = profiles.get(name)
        if call is None:
            raise SystemExit(f"focal bench coldstart: {stack} defines no profile for the {name} function")
        keywords = {k.arg: k.value for k in call.keywords}
        models = bool(_literal(keywords.get("models"), False))
        memory = int(_literal(call.args[0], 1024))  # type: ignore[call-overload]
        layers = ("deps", "auth") + (("models",) if models else ()) + (("llm",) if name in calls else ())
        out.append(Function(name=name, module=f"handlers.{name}", layers=layers,
                            memory_mb=max(memory, floor) if name in calls else memory,
                            snap_start=bool(_literal(keywords.get("snap_start"), False)), calls_models=name in calls))
    source = str(stack.relative_to(ROOT)) if stack.is_relative_to(ROOT) else str(stack)
    return out, source


def venv_layout() -> Layout:
    """This interpreter with everything installed here (bytecode as cached here: optimistic for Lambda)."""
    return Layout(label=f"this interpreter ({sys.executable}), all installed packages, bytecode as cached here",
                  command=(sys.executable,), code=FUNCTIONS, layer_paths={},
                  notes=("every package of this environment is importable (Lambda has only the function's layers); "
                         "the MiniLM files come from their installed packages",))


@lru_cache(maxsize=1)
def recipes() -> ModuleType:
    """layers/build.py, the recipes the CDK app bundles the assets with."""
    spec = importlib.util.spec_from_file_location("focal_layer_recipes", LAYERS / "build.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"focal bench coldstart: {LAYERS / 'build.py'} not found (a source checkout is needed)")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _recipe_hash(name: str) -> str:
    digest = hashlib.sha256(name.encode())
    for path in sorted([LAYERS / "build.py", *(LAYERS / name).rglob("*")]):
        if path.is_file():
            digest.update(path.name.encode() + path.read_bytes())
    if name == "llm":  # built against the deps layer's requirements
        for path in sorted((LAYERS / "deps").rglob("*")):
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def _runtime_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return {"boto3": version("boto3")}
    except PackageNotFoundError:
        return {}


def _build_runtime(out: Path, python312: str) -> None:
    """The packages Lambda's python3.12 runtime provides, compiled (the runtime ships them with bytecode)."""
    pin = _runtime_versions()
    boto3 = f"boto3=={pin['boto3']}" if "boto3" in pin else "boto3"
    recipes()._pip_install(out, boto3)
    subprocess.run([python312, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash", str(out)],
                   check=False, capture_output=True)


def _ensure(folder: Path, name: str, stamp: str, build) -> None:  # noqa: ANN001 - a recipe callable
    target, marker = folder / name, folder / f"{name}.stamp"
    if target.is_dir() and marker.is_file() and marker.read_text() == stamp:
        return
    shutil.rmtree(target, ignore_errors=True)
    print(f"focal bench coldstart: building {name} into {target} …", file=sys.stderr, flush=True)
    build(target)
    marker.write_text(stamp)


def built_assets(folder: Path) -> Path:
    """The code asset (rebuilt, it is small) and every layer (reused while its recipe is unchanged) in `folder`."""
    build = recipes()
    folder.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(folder / "code", ignore_errors=True)
    build.build_code(folder / "code")
    for name in LAYER_RECIPES:
        _ensure(folder, name, _recipe_hash(name), build.BUILDERS[name])
    return folder


def lambda_layout(folder: Path) -> Layout:
    """The assets as deployed: built with layers/build.py into `folder` (layers reused while their
    recipes are unchanged; the code asset rebuilt every run, it is small)."""
    build = recipes()
    python312 = build.python312()
    if python312 is None:
        raise SystemExit("focal bench coldstart: no CPython 3.12 found (Lambda's python3.12; set FOCAL_PYTHON312), "
                         "or run with --venv to measure in this interpreter instead")
    built_assets(folder)
    _ensure(folder, "runtime", json.dumps(_runtime_versions()), lambda out: _build_runtime(out, python312))
    return Layout(
        label=f"Lambda layout: code asset + each function's layers from layers/build.py in {folder}, "
              f"{python312} -I -S -B (bytecode as shipped, none written)",
        command=(python312, "-I", "-S", "-B"), code=folder / "code",
        layer_paths={"deps": folder / "deps" / "python", "auth": folder / "auth" / "python", "llm": folder / "llm" / "python",
                     "models": folder / "models" / "models", "models_code": folder / "models" / "python"},
        runtime=folder / "runtime",
        notes=(f"the runtime's own packages ({', '.join(RUNTIME_PACKAGES)}) installed with pip and compiled, "
               "as the python3.12 runtime ships them",),
    )
