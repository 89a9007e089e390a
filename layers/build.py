"""Layer and code-asset recipes, runnable on their own and used by the CDK app's local bundling.

    python layers/build.py code   OUT    # the one code asset: functions/{focal,handlers} + agents/
    python layers/build.py deps   OUT    # /opt/python: pydantic, numpy, onnxruntime, tokenizers, ...
    python layers/build.py llm    OUT    # /opt/python: litellm and what it needs beyond `deps`
    python layers/build.py models OUT    # /opt/models/minilm/{model.onnx,tokenizer.json}
    python layers/build.py auth   OUT    # /opt/python: pyjwt (every function, the authorizer included)
    python layers/build.py sizes  DIR... # unzipped size of built folders (the 250 MB budget)

Reproducible: when a hashed lock file sits beside a recipe (`requirements.lock`, written by
`layers/lock.py`), pip installs exactly it with `--require-hashes --no-deps`; the asset hash covers the
lock (focal_infra/assets.py hashes the whole recipe folder). Bytecode: `.pyc` compiled by a CPython 3.12
(Lambda's version; `FOCAL_PYTHON312`, `python3.12` on PATH or pyenv), in unchecked-hash mode (valid
whatever the files' mtimes after unzipping), for the code asset and the deps layer's pure-Python
packages in `COMPILED_DEPS` — not for numpy, onnxruntime or litellm: their .pyc (litellm 36 MB for 32 MB
of source) would push sensor and enforce (code + deps + models + llm = 236.5 MB) past Lambda's 262 MB;
SnapStart restores a snapshot taken after those imports instead. Without a 3.12 the build says so and
ships sources only (Lambda layers are read-only, so every cold import then compiles again).

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
# dateparser carries date words for ~200 languages (2.7 MB); the readers serve these (focal.sensing.locale_reading.LANGS
# and English; tests/infra checks they agree). Its package init builds a map of every language in languages_info, so that
# list is narrowed to the same languages (`_trim_dateparser`), or importing dateparser.search would fail.
DATEPARSER_LANGUAGES = ("en", "es", "de", "fr")
# hf-xet (11 MB) only speeds up downloads from the Hugging Face hub, which a Lambda never does.
OPTIONAL = {"hf-xet"}
# Pure-Python packages of the deps layer that every function imports at init (~12 MB of .pyc; phonenumbers, read
# by the stores' masking at rest, ~3 MB more).
COMPILED_DEPS = ("pydantic", "pydantic_settings", "aws_lambda_powertools", "yaml", "annotated_types",
                 "typing_inspection", "typing_extensions.py", "simpleeval.py", "opensearchpy", "requests",
                 "charset_normalizer", "idna", "certifi", "events", "aws_xray_sdk", "wrapt", "phonenumbers", "tenacity")
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


def python312() -> str | None:
    """A CPython 3.12 executable to compile bytecode for Lambda's python3.12, or None."""
    candidates = [os.environ.get("FOCAL_PYTHON312", ""), sys.executable if sys.version_info[:2] == (3, 12) else "",
                  shutil.which("python3.12") or "",
                  *sorted(str(p) for p in Path.home().glob(".pyenv/versions/3.12*/bin/python3.12"))]
    for candidate in filter(None, candidates):
        try:
            out = subprocess.run([candidate, "-c", "import sys; print(sys.implementation.name, *sys.version_info[:2])"],
                                 capture_output=True, text=True, timeout=30)
        except OSError:
            continue
        if out.returncode == 0 and out.stdout.split() == ["cpython", "3", "12"]:
            return candidate
    return None


def compile_bytecode(folder: Path, runtime_prefix: str, only: tuple[str, ...] | None = None) -> bool:
    """`.pyc` for the modules under `folder` (or only the packages / modules `only` names there), with
    tracebacks naming `runtime_prefix/...`."""
    py = python312()
    if py is None:
        print(f"WARNING: no CPython 3.12 found (set FOCAL_PYTHON312): {folder.name} ships without .pyc; "
              "cold imports compile every module (SnapStart restores skip that)", file=sys.stderr, flush=True)
        return False
    targets = [str(folder / name) for name in only if (folder / name).exists()] if only else [str(folder)]
    if not targets:
        return False
    cmd = [py, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash",
           "-s", str(folder), "-p", runtime_prefix, *targets]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:  # a few vendored files (tests, py2 examples) may not compile: reported, not fatal
        print(f"compileall: some files did not compile under {folder}:\n{result.stdout[-2000:]}", file=sys.stderr)
    return True


def _locked(recipe: Path) -> Path | None:
    lock = recipe.with_suffix(".lock")
    return lock if lock.is_file() else None


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


# Never imported at run time: the packages' own test suites (numpy's alone 7.6 MB; a `tests.py` module, as jinja2's,
# is kept) and type stubs (2.7 MB).
TRIM_EVERYWHERE = ("**/tests/", "**/*.pyi")


def _trim(site: Path) -> None:
    for pattern in (*TRIM, *TRIM_EVERYWHERE):
        for path in list(site.glob(pattern)):
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)  # may sit in a folder removed just before
    for cache in list(site.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)


def _trim_dateparser(site: Path, keep: tuple[str, ...] = DATEPARSER_LANGUAGES) -> None:
    data = site / "dateparser" / "data"
    if not data.is_dir():
        return
    for module in (data / "date_translation_data").glob("*.py"):
        if module.stem not in (*keep, "__init__"):
            module.unlink()
    with (data / "languages_info.py").open("a", encoding="utf-8") as info:
        info.write(f"""
# Narrowed by layers/build.py: only these languages' data (date_translation_data) ships in this layer.
_KEPT = {keep!r}
language_order = [lang for lang in language_order if lang in _KEPT]
language_locale_dict = {{lang: loc for lang, loc in language_locale_dict.items() if lang in _KEPT}}
language_map = {{word: [lang for lang in langs if lang in _KEPT] for word, langs in language_map.items()}}
""")


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


def build_code(out: Path, compile_pyc: bool = True) -> None:
    """The single code asset: the engine and the thin handlers, plus every example agent in agents/."""
    out.mkdir(parents=True, exist_ok=True)
    for package in CODE_PACKAGES:
        shutil.copytree(FUNCTIONS / package, out / package, ignore=CODE_IGNORE, dirs_exist_ok=True)
    if EXAMPLES.is_dir():
        for agent_dir in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
            shutil.copytree(agent_dir, out / "agents" / agent_dir.name, ignore=CODE_IGNORE, dirs_exist_ok=True)
    if compile_pyc:
        compile_bytecode(out, "/var/task")


def _install_recipe(site: Path, recipe: Path, *extra: str) -> None:
    """The recipe's lock file when there is one (exact versions, hashes checked), else the recipe itself."""
    lock = _locked(recipe)
    if lock:
        _pip_install(site, "--no-deps", "--require-hashes", "-r", str(lock))
    else:
        print(f"WARNING: {recipe.relative_to(ROOT)} has no lock file: resolving version ranges "
              "(run layers/lock.py)", file=sys.stderr, flush=True)
        _pip_install(site, "-r", str(recipe), *extra)


def build_deps(out: Path) -> None:
    site = out / "python"
    _install_recipe(site, HERE / "deps" / "requirements.txt")
    _install_recipe(site, HERE / "deps" / "requirements-nodeps.txt", "--no-deps")
    _remove_distributions(site, NOT_IN_LAYERS)
    _trim(site)
    compile_bytecode(site, "/opt/python", COMPILED_DEPS)


def build_llm(out: Path) -> None:
    site = out / "python"
    deps = HERE / "deps" / "requirements.txt"
    # Resolve litellm together with the deps layer so shared packages agree on one version,
    # then keep only what the deps layer does not already provide.
    with tempfile.TemporaryDirectory() as tmp:
        constraints = Path(tmp) / "constraints.txt"  # pip refuses extras in constraints
        constraints.write_text(re.sub(r"\[[^\]]*\]", "", deps.read_text()))
        _install_recipe(site, HERE / "llm" / "requirements.txt", "-c", str(constraints))
    nodeps = HERE / "deps" / "requirements-nodeps.txt"
    deps_lock = _locked(deps)
    planned = _requirement_names(deps_lock) if deps_lock else _planned("-r", str(deps))
    provided = planned | _requirement_names(nodeps) | NOT_IN_LAYERS | OPTIONAL
    removed = _remove_distributions(site, provided)
    print("llm layer: left to the deps layer / runtime:", ", ".join(sorted(removed)), file=sys.stderr, flush=True)
    _trim(site)  # no .pyc: they would not fit (see the module docstring); SnapStart covers litellm's import
    _trim_dateparser(site)


def build_auth(out: Path) -> None:
    """PyJWT for customer tokens: small enough for the authorizer, which carries no other layer."""
    site = out / "python"
    _install_recipe(site, HERE / "auth" / "requirements.txt")
    _remove_distributions(site, NOT_IN_LAYERS)
    _trim(site)
    compile_bytecode(site, "/opt/python")


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


BUILDERS = {"code": build_code, "deps": build_deps, "llm": build_llm, "models": build_models, "auth": build_auth}


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
