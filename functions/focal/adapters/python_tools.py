"""Runs `python` tools: 'file.py:function' (relative to the agent file) or 'package.module:function'.

A side-effecting call's idempotency key (`ToolCallContext.idempotency_key`) is passed as the keyword
argument `idempotency_key` to a function that declares a parameter of that name (or `**kwargs`);
other functions are called with their arguments only.
"""

from __future__ import annotations

import concurrent.futures
import functools
import importlib
import importlib.util
import inspect
import sys
import threading
from pathlib import Path
from typing import Any

from focal.errors import ToolError
from focal.models.agent import AgentConfig, Tool, ToolKind
from focal.models.turn import ToolCallContext

_modules: dict[str, Any] = {}
_lock = threading.Lock()
_pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="focal-tool")


def _load(agent: AgentConfig, entrypoint: str) -> Any:
    target, _, func_name = entrypoint.partition(":")
    with _lock:
        if target.endswith(".py"):
            base = Path(agent.base_dir or ".")
            path = (base / target).resolve()
            if base.resolve() not in path.parents:
                raise ToolError(f"tool file {target!r} is outside the agent folder")
            key = str(path)
            if key not in _modules:
                spec = importlib.util.spec_from_file_location(f"focal_agent_tools_{abs(hash(key))}", path)
                if spec is None or spec.loader is None or not path.exists():
                    raise ToolError(f"tool file {target!r} not found")
                module = importlib.util.module_from_spec(spec)
                sys.modules[spec.name] = module
                spec.loader.exec_module(module)
                _modules[key] = module
            module = _modules[key]
        else:
            module = importlib.import_module(target)
    func = getattr(module, func_name, None)
    if not callable(func):
        raise ToolError(f"tool function {func_name!r} not found in {target!r}")
    return func


@functools.lru_cache(maxsize=512)
def takes_idempotency_key(func: Any) -> bool:
    """Whether `func` can be given `idempotency_key=` (a parameter of that name, or **kwargs); inspected once."""
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):  # no signature to read (some builtins)
        return False
    return any(
        (p.name == "idempotency_key" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)) or p.kind == p.VAR_KEYWORD
        for p in parameters
    )


class PythonToolRunner:
    def run(self, agent: AgentConfig, tool: Tool, arguments: dict[str, Any],
            context: ToolCallContext | None = None) -> dict[str, Any]:
        if tool.kind != ToolKind.python:
            raise ToolError(f"tool kind {tool.kind.value!r} is not supported by this runner yet")
        func = _load(agent, tool.entrypoint)
        kwargs = dict(arguments)
        key = context.idempotency_key if context else None
        # A tool input that is itself named idempotency_key is the agent file's to fill: never overwritten.
        if key and "idempotency_key" not in kwargs and takes_idempotency_key(func):
            kwargs["idempotency_key"] = key
        future = _pool.submit(func, **kwargs)
        try:
            result = future.result(timeout=tool.timeout_s)
        except concurrent.futures.TimeoutError:
            raise ToolError(f"tool {tool.id!r} timed out after {tool.timeout_s}s") from None
        except ToolError:
            raise
        except Exception as exc:
            raise ToolError(f"tool {tool.id!r} failed: {type(exc).__name__}: {exc}") from exc
        if not isinstance(result, dict):
            raise ToolError(f"tool {tool.id!r} returned {type(result).__name__}, expected a mapping")
        return result
