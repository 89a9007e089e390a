"""Which ports (the fields of `focal.turn.deps.Deps`) each Lambda function's code calls, and which methods,
read from the code with `ast` (nothing imported), as model_stages.py reads which functions may call a model.

Entry points: every function the handler module defines and every call its module body makes (a handler
module is the function's whole surface: routes registered by decorators included), plus the stages the
function runs by name (`focal.stages.<stage>.run`, which focal.pipeline.stage_io imports with importlib and
ast cannot follow): a stage function its own stage, the approval endpoint the stages from RESUME_STAGE on.

From there calls are followed to the functions they name (same module, `from m import f`, `module.f`); a
reference to a function counts as a call (callbacks). In every reached function a port use is what the code
does through the `Deps` value (a name `deps`, a parameter it was passed to, `deps_from_env()`):
`deps.<port>.<method>`, `getattr(deps.<port>, "<method>")`, and a port handed to another function is followed
to what that function calls on its parameter. A port or `Deps` handed to a call that cannot be followed is
reported in `unfollowed` (port_grants.py grants such a port every method and refuses such a `Deps`, except
the stage dispatch named above).

    port_calls(handler, stages)   frozenset of (port, method), e.g. ("sessions", "save")
    unfollowed(handler, stages)   HandOvers: where a Deps or a port went into a call that could not be followed
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from focal_infra.paths import FUNCTIONS

DEPS_FACTORIES = {("focal.wiring", "deps_from_env"), ("focal.wiring", "deps_from_settings")}
ROOTS = ("focal", "handlers")
DEPS = "DEPS"  # the taint of a value that is the Deps object; a port's is its field name
STAGE_DISPATCH = "focal.pipeline.stage_io:run_stage"  # stage_module(name).run(state, deps): see dispatched_stages


@dataclass(frozen=True)
class HandOver:
    """A Deps (port == DEPS) or a port handed to a call that cannot be followed."""
    where: str  # module:function
    port: str
    code: str


@dataclass
class Module:
    name: str
    tree: ast.Module
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # local → (module, attribute)


def _file(name: str, root: Path) -> Path | None:
    path = root.joinpath(*name.split("."))
    for candidate in (path / "__init__.py", path.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


@cache
def module(name: str, root: Path = FUNCTIONS) -> Module | None:
    file = _file(name, root)
    if file is None or name.split(".")[0] not in ROOTS:
        return None
    mod = Module(name, ast.parse(file.read_text(), str(file)))
    package = name if file.name == "__init__.py" else name.rpartition(".")[0]
    for node in mod.tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            mod.functions[node.name] = node
        elif isinstance(node, ast.Import):
            for alias in node.names:
                mod.imports[alias.asname or alias.name.split(".")[0]] = (alias.name if alias.asname else
                                                                         alias.name.split(".")[0], None)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
            for alias in node.names:
                mod.imports[alias.asname or alias.name] = (base, alias.name)
    return mod


Target = tuple[str, str]  # (module, function name)


def resolve_symbol(module_name: str, attribute: str, root: Path = FUNCTIONS, depth: int = 0) -> Target | str | None:
    """A function (module, name), a module name, or None, for `attribute` looked up in `module_name`."""
    mod = module(module_name, root)
    if mod is None or depth > 10:
        return None
    if attribute in mod.functions:
        return (module_name, attribute)
    if attribute in mod.imports:
        base, name = mod.imports[attribute]
        return resolve_symbol(base, name, root, depth + 1) if name else (base if module(base, root) else None)
    submodule = f"{module_name}.{attribute}"
    return submodule if module(submodule, root) else None


def _resolve_expr(expr: ast.expr, mod: Module, root: Path) -> Target | str | None:
    if isinstance(expr, ast.Name):
        if expr.id in mod.functions:
            return (mod.name, expr.id)
        if expr.id in mod.imports:
            base, name = mod.imports[expr.id]
            return resolve_symbol(base, name, root) if name else (base if module(base, root) else None)
        return None
    if isinstance(expr, ast.Attribute):
        owner = _resolve_expr(expr.value, mod, root)
        if isinstance(owner, str):
            return resolve_symbol(owner, expr.attr, root)
    return None


class Walk:
    """One analysis: every (function, binding) reached once; port calls and unfollowed hand-overs collected."""

    def __init__(self, root: Path = FUNCTIONS) -> None:
        self.root = root
        self.calls: set[tuple[str, str]] = set()
        self.unfollowed: set[HandOver] = set()
        self._seen: set[tuple[Target, frozenset[tuple[str, str]]]] = set()

    def module_body(self, module_name: str) -> None:
        mod = module(module_name, self.root)
        if mod is None:
            raise ModuleNotFoundError(f"{module_name} is not a module under {self.root}")
        body = [n for n in mod.tree.body if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
        self._scan(mod, body, {}, f"{module_name}:<module>")
        for name in mod.functions:
            self.function((module_name, name), {})

    def function(self, target: Target, binding: dict[str, str]) -> None:
        key = (target, frozenset(binding.items()))
        if key in self._seen:
            return
        self._seen.add(key)
        mod = module(target[0], self.root)
        assert mod is not None
        node = mod.functions[target[1]]
        env = dict(binding)
        for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
            if arg.arg == "deps" or (isinstance(arg.annotation, ast.Name) and arg.annotation.id == "Deps"):
                env.setdefault(arg.arg, DEPS)
        self._scan(mod, node.body, env, f"{target[0]}:{target[1]}")

    def _taint(self, expr: ast.expr, env: dict[str, str], mod: Module) -> str | None:
        if isinstance(expr, ast.Name):
            return env.get(expr.id)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and env.get(expr.value.id) == DEPS:
            return expr.attr  # deps.<port>
        if isinstance(expr, ast.Call) and _resolve_expr(expr.func, mod, self.root) in DEPS_FACTORIES:
            return DEPS
        return None

    def _scan(self, mod: Module, body: list[ast.stmt], env: dict[str, str], where: str) -> None:
        nodes = [n for stmt in body for n in ast.walk(stmt)]
        for node in nodes:  # names bound to the Deps object or to a port (nested functions share them)
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                taint = self._taint(node.value, env, mod)
                if taint:
                    env[node.targets[0].id] = taint
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                for arg in node.args.args:
                    if arg.arg == "deps":
                        env.setdefault(arg.arg, DEPS)
        for node in nodes:
            if isinstance(node, ast.Attribute):
                self._attribute_use(node, env)
            elif isinstance(node, ast.Call):
                self._call(node, mod, env, where)
        for node in nodes:  # a function named, not called: a callback, followed as a call
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                target = _resolve_expr(node, mod, self.root)
                if isinstance(target, tuple):
                    self.function(target, {})

    def _attribute_use(self, node: ast.Attribute, env: dict[str, str]) -> None:
        inner = node.value
        if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and env.get(inner.value.id) == DEPS:
            self.calls.add((inner.attr, node.attr))  # deps.<port>.<method>
        elif isinstance(inner, ast.Name) and env.get(inner.id) not in (None, DEPS):
            self.calls.add((env[inner.id], node.attr))  # <name bound to a port>.<method>

    def _call(self, node: ast.Call, mod: Module, env: dict[str, str], where: str) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2:
            port = self._taint(node.args[0], env, mod)
            if port not in (None, DEPS) and isinstance(node.args[1], ast.Constant):
                self.calls.add((str(port), str(node.args[1].value)))
            return
        handed = [(i, self._taint(a, env, mod)) for i, a in enumerate(node.args)]
        handed_kw = [(k.arg, self._taint(k.value, env, mod)) for k in node.keywords if k.arg]
        if _copies_deps(node, handed):
            # dataclasses.replace(deps, field=new): the same ports, one swapped; the new value is its own
            # expression, scanned like any other (a port wrapped there is a hand-over of that port)
            return
        if not any(t for _, t in handed + handed_kw):
            target = _resolve_expr(node.func, mod, self.root)
            if isinstance(target, tuple):
                self.function(target, {})
            return
        target = _resolve_expr(node.func, mod, self.root)
        if not isinstance(target, tuple):
            callbacks = [t for a in node.args if isinstance(t := _resolve_expr(a, mod, self.root), tuple)]
            for taint in {t for _, t in handed + handed_kw if t}:
                if taint == DEPS and callbacks:
                    continue  # executor.submit(f, ..., deps): f is followed (its `deps` parameter is the Deps)
                self.unfollowed.add(HandOver(where, taint, ast.unparse(node)[:160]))
            return
        callee = module(target[0], self.root).functions[target[1]]  # type: ignore[union-attr]
        params = [a.arg for a in (*callee.args.posonlyargs, *callee.args.args)]
        binding = {params[i]: t for i, t in handed if t and i < len(params)}
        binding.update({k: t for k, t in handed_kw if t})
        self.function(target, {k: v for k, v in binding.items() if v})


def _copies_deps(node: ast.Call, handed: list[tuple[int, str | None]]) -> bool:
    """`replace(deps, ...)` / `dataclasses.replace(deps, ...)`: a copy of the Deps with some fields swapped."""
    return (ast.unparse(node.func) in ("replace", "dataclasses.replace") and len(node.args) == 1
            and handed == [(0, DEPS)] and all(k.arg for k in node.keywords))


def dispatched_stages(function: str) -> tuple[str, ...]:
    """The stages `function` (a stage name, fallback, approvals, ...) runs by name through focal.pipeline.stage_io."""
    from focal.turn.definition import RESUME_STAGE, STAGE_NAMES

    if function in STAGE_NAMES:
        return (function,)
    if function == "approvals":  # focal.pipeline.approval_answer → run_pipeline(..., RESUME_STAGE)
        return STAGE_NAMES[STAGE_NAMES.index(RESUME_STAGE):]
    return ()


@cache
def _walk(handler: str, stages: tuple[str, ...], root: Path = FUNCTIONS) -> Walk:
    walk = Walk(root)
    module_name, _, attribute = handler.rpartition(".")
    walk.module_body(module_name)
    target = resolve_symbol(module_name, attribute, root)
    if isinstance(target, tuple):  # a handler imported from elsewhere (handlers.fallback's)
        walk.function(target, {})
    for stage in stages:
        walk.function((f"focal.stages.{stage}", "run"), {"deps": DEPS})
    return walk


def port_calls(handler: str, stages: tuple[str, ...] = (), root: Path = FUNCTIONS) -> frozenset[tuple[str, str]]:
    """(port, method) pairs the function with this Lambda handler ("handlers.tools.handler") may call."""
    return frozenset(_walk(handler, stages, root).calls)


def unfollowed(handler: str, stages: tuple[str, ...] = (), root: Path = FUNCTIONS) -> frozenset[HandOver]:
    """Hand-overs that could not be followed, except the stage dispatch that `stages` already covers."""
    return frozenset(h for h in _walk(handler, stages, root).unfollowed
                     if not (h.port == DEPS and h.where == STAGE_DISPATCH and stages))
