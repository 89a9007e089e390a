"""What a `python` tool may load, and loading it: only the agent's own code.

An entrypoint is 'file.py:function': a relative path inside the agent's folder (no '..', not absolute,
still inside the folder once symlinks are resolved, an existing regular .py file) and a public function
(a plain identifier not starting with '_') that the file itself defines with `def` — not a name it
imported or assigned. 'module:function' is refused unless the deployment lists that exact module in
settings.tool_modules (FOCAL_TOOL_MODULES); an agent file can never allow-list anything.
`entrypoint_problem` states these rules once: `focal validate` and publishing call it, and the tool worker
process (focal.adapters.tool_worker) checks again with `load_function` right before importing anything.

A side-effecting call's idempotency key is passed as the keyword argument `idempotency_key` to a function
that declares a parameter of that name (or `**kwargs`); the authenticated customer as `customer_id` to a
function that declares it (`call_arguments`).

Imports only the standard library and two small focal modules: the worker process starts with it.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import stat
import sys
import threading
from collections.abc import Collection
from pathlib import Path
from typing import Any

from focal import ast_parse
from focal.errors import ToolError

MAX_TOOL_FILE_BYTES = 1_000_000
_FUNCTION = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")

_modules: dict[str, Any] = {}
_functions: dict[tuple[str, str], Any] = {}  # (resolved agent folder, entrypoint) -> the checked function
_lock = threading.Lock()


def _form_problem(target: str, func_name: str, allowed_modules: Collection[str]) -> str | None:
    """What is wrong with the entrypoint's text alone (no file system access)."""
    if not target or not func_name:
        return "expected 'file.py:function' (a file in the agent's folder)"
    if func_name.startswith("_"):
        return f"function '{func_name}' is private (its name starts with '_'); name a public function"
    if not _FUNCTION.match(func_name):
        return f"'{func_name}' is not a plain function name"
    if not target.endswith(".py"):
        if target in allowed_modules and _MODULE.match(target):
            return None
        return (f"module '{target}' is not allowed: a tool's entrypoint is 'file.py:function' in the agent's folder "
                "(modules only when the deployment lists them in FOCAL_TOOL_MODULES)")
    if target.startswith(("/", "~")):
        return f"'{target}' is an absolute path; write a path relative to the agent's folder"
    if "\\" in target or "\0" in target or any(part in ("", ".", "..") for part in target.split("/")):
        return f"'{target}' must be a plain relative path inside the agent's folder (no '..', '.', empty parts or backslashes)"
    return None


def _binding(stmt: ast.stmt, name: str) -> str | None:
    """How one top-level statement binds `name`: 'def', or what else it makes of it; None if it does not."""
    if isinstance(stmt, ast.FunctionDef):
        return "def" if stmt.name == name else None
    if isinstance(stmt, ast.AsyncFunctionDef | ast.ClassDef):
        return ("an async function" if isinstance(stmt, ast.AsyncFunctionDef) else "a class") if stmt.name == name else None
    found = None
    for node in ast.walk(stmt):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*" or (alias.asname or alias.name.split(".")[0]) == name:
                    found = "imported"
        elif isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store | ast.Del):
            found = found or "assigned"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            found = found or "defined conditionally"
    return found


def read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; raises OSError naming why not. Opened without
    blocking and checked on the open file: a FIFO or a device never blocks or streams the read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError("not a regular file")
        if info.st_size > limit:
            raise OSError(f"{info.st_size} bytes, over the limit of {limit}")
        with open(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise OSError(f"over the limit of {limit} bytes")
    return data


def parse_tool_file(path: Path, target: str) -> ast.Module:
    """A tool file's syntax tree, read, never run; raises ValueError naming why it cannot be had."""
    try:
        source = read_regular_file(path, MAX_TOOL_FILE_BYTES)
    except OSError as exc:
        raise ValueError(f"cannot read '{target}': {exc.strerror or exc}") from None
    return _parsed_source(source, target)


@functools.lru_cache(maxsize=32)
def _parsed_source(source: bytes, target: str) -> ast.Module:
    """One parse per file content in a process (validating an agent reads its tool file once per tool and
    check, and a suite loads its agent again and again); the tree is shared: every caller reads it, none changes it."""
    try:
        tree: ast.Module = ast_parse.parse(source, filename=target)
        return tree
    except (SyntaxError, ValueError) as exc:  # ValueError: null bytes
        raise ValueError(f"'{target}' cannot be parsed: {exc}") from None


def _definition_problem(path: Path, target: str, func_name: str) -> str | None:
    """Whether `path` defines `func_name` with a top-level `def` that nothing later rebinds; read, never run."""
    try:
        tree = parse_tool_file(path, target)
    except ValueError as exc:
        return str(exc)
    kind = None
    for stmt in tree.body:
        kind = _binding(stmt, func_name) or kind
    if kind == "def":
        return None
    if kind is None:
        return f"'{func_name}' is not defined in '{target}'"
    return f"'{func_name}' is {kind} in '{target}', not a function defined there with 'def'"


def _resolve_file(base_dir: str, target: str) -> tuple[Path | None, str | None]:
    """The tool file, resolved through symlinks and checked to stay inside the agent's folder."""
    base = Path(base_dir).resolve()
    try:
        path = (base / target).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return None, f"file '{target}' not found next to the agent file"
    if base not in path.parents:
        return None, f"'{target}' leads outside the agent's folder (through a symlink)"
    if not path.is_file() or path.suffix != ".py":
        return None, f"'{target}' is not a regular .py file"
    return path, None


def entrypoint_problem(entrypoint: str, base_dir: str | None, allowed_modules: Collection[str] = ()) -> str | None:
    """Why a python tool's `entrypoint` may not be loaded, or None. Without `base_dir` only its form can
    be checked; with it, the file must exist in that folder and define the function."""
    target, _, func_name = entrypoint.partition(":")
    problem = _form_problem(target, func_name, allowed_modules)
    if problem:
        return problem
    if not target.endswith(".py"):
        return _module_problem(target, func_name)
    if base_dir is None:
        return None
    path, problem = _resolve_file(base_dir, target)
    return problem or _definition_problem(path, target, func_name)  # type: ignore[arg-type]


def function_definition(entrypoint: str, base_dir: str | None,
                        allowed_modules: Collection[str] = ()) -> tuple[ast.FunctionDef, str] | None:
    """The `def` an entrypoint names and the file it is in, read from the source, never run (None when
    `entrypoint_problem` finds a problem, or the source cannot be had): what `focal validate` checks the
    tool's declared input against."""
    if entrypoint_problem(entrypoint, base_dir, allowed_modules):
        return None
    target, _, func_name = entrypoint.partition(":")
    if target.endswith(".py"):
        if base_dir is None:
            return None
        path, _ = _resolve_file(base_dir, target)
    else:
        spec = importlib.util.find_spec(target)
        path = Path(spec.origin) if spec is not None and spec.origin else None
    if path is None:
        return None
    try:
        tree = parse_tool_file(path, target)
    except ValueError:
        return None
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == func_name]
    return (found[-1], target) if found else None


def _module_problem(module: str, func_name: str) -> str | None:
    """An allow-listed module's source, read for the function's definition (finding a dotted module imports
    its parent packages, which the deployment ships; the module itself is not run)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError) as exc:
        return f"module '{module}' cannot be found: {exc}"
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return f"module '{module}' is not a Python source module that can be found here"
    return _definition_problem(Path(spec.origin), module, func_name)


def _import_file(path: Path) -> Any:
    key = str(path)
    if key not in _modules:
        name = f"focal_agent_tools_{hashlib.sha256(key.encode()).hexdigest()[:16]}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ToolError(f"tool file {path.name!r} cannot be loaded")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        _modules[key] = module
    return _modules[key]


def load_function(base_dir: str | None, entrypoint: str, allowed_modules: Collection[str]) -> Any:
    """The checked function an entrypoint names, its file imported once (raises ToolError naming why not)."""
    target, _, func_name = entrypoint.partition(":")
    problem = _form_problem(target, func_name, allowed_modules)
    if problem:
        raise ToolError(f"tool entrypoint {entrypoint!r} refused: {problem}")
    is_file = target.endswith(".py")
    if is_file and not base_dir:
        raise ToolError(f"tool entrypoint {entrypoint!r} refused: the agent has no folder to load '{target}' from")
    cache_key = (str(Path(base_dir or "").resolve()) if is_file else "", entrypoint)
    with _lock:
        func = _functions.get(cache_key)
        if func is not None:
            return func
        if is_file:
            path, problem = _resolve_file(base_dir or "", target)
            problem = problem or _definition_problem(path, target, func_name)  # type: ignore[arg-type]
            if problem:
                raise ToolError(f"tool entrypoint {entrypoint!r} refused: {problem}")
            module = _import_file(path)  # type: ignore[arg-type]
        else:
            module = importlib.import_module(target)
        func = getattr(module, func_name, None)
        # Checked on the live object too: the file may rebind the name in ways the static reading missed.
        if not inspect.isfunction(func) or func.__module__ != module.__name__:
            raise ToolError(f"tool entrypoint {entrypoint!r} refused: '{func_name}' is not a function defined in '{target}'")
        _functions[cache_key] = func
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


def call_arguments(func: Any, arguments: dict[str, Any], context: dict[str, Any] | None) -> dict[str, Any]:
    """The keyword arguments `func` is called with: the tool's arguments, the call's idempotency key when it
    takes one, and the authenticated customer when it declares `customer_id`. `context`: the call's
    `customer_id` and `idempotency_key` (None outside a turn)."""
    kwargs = dict(arguments)
    key = (context or {}).get("idempotency_key")
    # A tool input that is itself named idempotency_key is the agent file's to fill: never overwritten.
    if key and "idempotency_key" not in kwargs and takes_idempotency_key(func):
        kwargs["idempotency_key"] = key
    # The authenticated customer goes to a function that declares `customer_id`, replacing any
    # argument of that name (a model or an agent file never says whose data a tool touches).
    try:
        declared = inspect.signature(func).parameters.get("customer_id")
    except (TypeError, ValueError):
        declared = None
    if context is not None and declared is not None and declared.kind in (declared.POSITIONAL_OR_KEYWORD, declared.KEYWORD_ONLY):
        kwargs["customer_id"] = context.get("customer_id")
    return kwargs
