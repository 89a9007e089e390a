"""Runs `python` tools: 'file.py:function' (relative to the agent file) or 'package.module:function'."""

from __future__ import annotations

import concurrent.futures
import importlib
import importlib.util
import sys
import threading
from pathlib import Path
from typing import Any

from focal.errors import ToolError
from focal.models.agent import AgentConfig, Tool, ToolKind

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


class PythonToolRunner:
    def run(self, agent: AgentConfig, tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool.kind != ToolKind.python:
            raise ToolError(f"tool kind {tool.kind.value!r} is not supported by this runner yet")
        func = _load(agent, tool.entrypoint)
        future = _pool.submit(func, **arguments)
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
