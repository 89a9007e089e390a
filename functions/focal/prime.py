"""Priming a stage function: do at init what its first invocation would otherwise do.

With Lambda SnapStart the init phase runs once, before the snapshot; everything done there is restored,
not repeated, on a cold start. `prime(stage)` builds the ports (`deps_from_env`), imports the stage
module, loads the embedding model with one embedding (the stages that embed), the multilingual model where
the stack gives its files (FOCAL_USE_FILES), and imports litellm (the
stages that may call a model, where it is installed), so a restored function's first turn pays only the restore and per-agent work.
A handler calls it at import when `should_prime()` (SnapStart's snapshot init, or FOCAL_PRIME=1); without
SnapStart it changes nothing but where the same CPU is spent, and stays off.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import resource
import sys
from typing import Any

EMBEDDING_STAGES = frozenset({"sensor", "retrieve", "enforce"})  # the functions that carry the models layer
USE_FILES_ENV = "FOCAL_USE_FILES"  # focal.adapters.use_files.ENV, without importing the adapter at init


def cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (usage.ru_utime + usage.ru_stime) * 1000


def should_prime() -> bool:
    return os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") == "snap-start" or os.environ.get("FOCAL_PRIME") == "1"


def prime(stage: str, *, embed: bool | None = None, llm: bool | None = None) -> dict[str, float]:
    """CPU milliseconds of each part: ports (+ the stage module), onnx (model + first embedding), litellm."""
    from focal.wiring import deps_from_env

    spent: dict[str, float] = {}
    started = cpu_ms()
    deps = deps_from_env()
    if stage in _stage_names():
        importlib.import_module(f"focal.stages.{stage}")
    spent["ports"] = cpu_ms() - started
    if stage in EMBEDDING_STAGES if embed is None else embed:
        started = cpu_ms()
        deps.embedder.embed(["warm up"])
        spent["onnx"] = cpu_ms() - started
    if os.environ.get(USE_FILES_ENV) and deps.multilingual_embedder is not None:
        # The stack names the multilingual model's files only for the functions that embed in that space: fetched
        # from S3 and loaded before the snapshot, a restored function's first turn in another language pays nothing.
        started = cpu_ms()
        deps.multilingual_embedder.embed(["hola"])
        spent["multilingual"] = cpu_ms() - started
    if llm is None:  # a stage that may call a model imports focal.model_calls (as the infra derives it)
        llm = "focal.model_calls" in sys.modules and importlib.util.find_spec("litellm") is not None
    if llm:
        from focal.adapters.litellm_model import warm_up

        started = cpu_ms()
        warm_up(background=False, model=getattr(deps.model, "model", None))  # with its provider's client modules
        spent["litellm"] = cpu_ms() - started
    return spent


def _stage_names() -> tuple[str, ...]:
    from focal.turn.definition import STAGE_NAMES

    return (*STAGE_NAMES, "fallback")


def prime_quietly(stage: str) -> Any:
    """For a handler's import: prime when asked to, never fail the init over it (the turn would do it again)."""
    if not should_prime():
        return None
    try:
        return prime(stage)
    except Exception:  # noqa: BLE001 - a missing layer or model: the first invocation reports it properly
        return None
