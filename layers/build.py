"""Layer and code-asset recipes, runnable on their own and used by the CDK app's local bundling.

    python layers/build.py code   OUT    # the one code asset: functions/{focal,handlers} + agents/
    python layers/build.py deps   OUT    # /opt/python: pydantic, numpy, onnxruntime, tokenizers, ...
    python layers/build.py llm    OUT    # /opt/python: litellm and what it needs beyond `deps`
    python layers/build.py models OUT    # /opt/models/minilm/{model.onnx,tokenizer.json}
    python layers/build.py sizes  DIR... # unzipped size of built folders (the 250 MB budget)

Third-party packages are installed with pip for the Lambda platform (python3.12 on Amazon Linux
2023, x86_64, glibc 2.34): wheels only, never built from source, so no Docker is needed.
Only the standard library is used here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FUNCTIONS = ROOT / "functions"
EXAMPLES = ROOT / "examples"

PYTHON_VERSION = "3.12"
# Lambda python3.12 runs on Amazon Linux 2023 (glibc 2.34). pip does not widen a
# manylinux_2_X platform to older ones, so name every glibc level a wheel may target.
PLATFORMS = ["manylinux2014_x86_64"] + [f"manylinux_2_{n}_x86_64" for n in range(17, 35)]

CODE_PACKAGES = ("focal", "handlers")
CODE_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".pytest_cache")
# Not needed at run time in a Lambda (offline tools, UIs, caches).
TRIM = (
    "onnxruntime/transformers",
    "onnxruntime/tools",
    "onnxruntime/quantization",
    "onnxruntime/datasets",
    "litellm/proxy/_experimental",
    "litellm/proxy/swagger",
    "litellm/rust_bridge/_native*.so",  # optional accelerator (18 MB); litellm falls back to Python
)
# hf-xet (11 MB) only speeds up downloads from the Hugging Face hub, which a Lambda never does.
OPTIONAL = {"hf-xet"}
NOT_IN_LAYERS = {"boto3", "botocore", "s3transfer", "jmespath", "urllib3", "python-dateutil", "six"}  # the runtime's


def _pip(*args: str) -> None:
    cmd = [sys.executable, "-m", "pip", *args]
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True)


def _platform_args() -> list[str]:
    out: list[str] = []
    for platform in PLATFORMS:
        out += ["--platform", platform]
    return out + ["--implementation", "cp", "--python-version", PYTHON_VERSION, "--only-binary=:all:"]


def _pip_install(target: Path, *args: str) -> None:
    _pip("install", "--quiet", "--disable-pip-version-check", "--no-compile", "--upgrade",
         "--target", str(target), *_platform_args(), *args)


def _planned(*requirement_args: str) -> set[str]:
    """Normalised names of the distributions pip would install for these requirements."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        _pip("install", "--quiet", "--disable-pip-version-check", "--dry-run", "--ignore-installed",
             "--target", str(Path(tmp) / "t"), *_platform_args(), "--report", str(report), *requirement_args)
        data = json.loads(report.read_text())
    return {_norm(item["metadata"]["name"]) for item in data.get("install", [])}


def _requirement_names(path: Path) -> set[str]:
    names = set()
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(_norm(re.split(r"[\[<>=!~; ]", line, maxsplit=1)[0]))
    return names


def _norm(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _trim(site: Path) -> None:
    for pattern in TRIM:
        for path in site.glob(pattern):
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink()
    for cache in list(site.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)


def _remove_distributions(site: Path, names: set[str]) -> list[str]:
    """Delete the files of installed distributions (by their RECORD) whose names are in `names`."""
    removed = []
    for dist_info in sorted(site.glob("*.dist-info")):
        meta = (dist_info / "METADATA").read_text(errors="replace").splitlines()
        name = next((line.split(":", 1)[1].strip() for line in meta if line.startswith("Name:")), "")
        if _norm(name) not in names:
            continue
        for row in (dist_info / "RECORD").read_text().splitlines():
            rel = row.split(",", 1)[0]
            path = (site / rel).resolve()
            if path.is_file() and site.resolve() in path.parents:
                path.unlink()
        shutil.rmtree(dist_info, ignore_errors=True)
        removed.append(name)
    for folder in sorted((p for p in site.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()
    return removed


def build_code(out: Path) -> None:
    """The single code asset: the engine and the thin handlers, plus every example agent in agents/."""
    out.mkdir(parents=True, exist_ok=True)
    for package in CODE_PACKAGES:
        shutil.copytree(FUNCTIONS / package, out / package, ignore=CODE_IGNORE, dirs_exist_ok=True)
    if EXAMPLES.is_dir():
        for agent_dir in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
            shutil.copytree(agent_dir, out / "agents" / agent_dir.name, ignore=CODE_IGNORE, dirs_exist_ok=True)


def build_deps(out: Path) -> None:
    site = out / "python"
    _pip_install(site, "-r", str(HERE / "deps" / "requirements.txt"))
    _pip_install(site, "--no-deps", "-r", str(HERE / "deps" / "requirements-nodeps.txt"))
    _remove_distributions(site, NOT_IN_LAYERS)
    _trim(site)


def build_llm(out: Path) -> None:
    site = out / "python"
    deps = HERE / "deps" / "requirements.txt"
    # Resolve litellm together with the deps layer so shared packages agree on one version,
    # then keep only what the deps layer does not already provide.
    with tempfile.TemporaryDirectory() as tmp:
        constraints = Path(tmp) / "constraints.txt"  # pip refuses extras in constraints
        constraints.write_text(re.sub(r"\[[^\]]*\]", "", deps.read_text()))
        _pip_install(site, "-r", str(HERE / "llm" / "requirements.txt"), "-c", str(constraints))
    nodeps = HERE / "deps" / "requirements-nodeps.txt"
    provided = _planned("-r", str(deps)) | _requirement_names(nodeps) | NOT_IN_LAYERS | OPTIONAL
    removed = _remove_distributions(site, provided)
    print("llm layer: left to the deps layer / runtime:", ", ".join(sorted(removed)), file=sys.stderr, flush=True)
    _trim(site)


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{name} is not installed in this environment (run `make install`)")
    return Path(next(iter(spec.submodule_search_locations)))


def model_manifest() -> list[tuple[str, str, str]]:
    """(package, file inside the package, destination in the layer) from layers/models/manifest.txt."""
    entries = []
    for line in (HERE / "models" / "manifest.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        source, dest = (part.strip() for part in line.split("->"))
        package, _, inner = source.partition("/")
        entries.append((package, inner, dest))
    return entries


def build_models(out: Path) -> None:
    """MiniLM (int8 ONNX) and its tokenizer at models/minilm/ → /opt/models/minilm/ in Lambda."""
    for package, inner, dest in model_manifest():
        target = out / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(_package_dir(package) / inner, target)


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file() and not f.is_symlink())


BUILDERS = {"code": build_code, "deps": build_deps, "llm": build_llm, "models": build_models}


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "sizes":
        total = 0
        for folder in argv[1:]:
            size = folder_size(Path(folder))
            total += size
            print(f"{size / 1e6:8.1f} MB  {folder}")
        print(f"{total / 1e6:8.1f} MB  total (Lambda limit: 262.1 MB unzipped, function + layers)")
        return 0
    if len(argv) != 2 or argv[0] not in BUILDERS:
        print(__doc__, file=sys.stderr)
        return 2
    BUILDERS[argv[0]](Path(argv[1]))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    sys.exit(main(sys.argv[1:]))
