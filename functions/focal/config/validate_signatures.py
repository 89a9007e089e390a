"""A python tool's function against the tool's declared `input`, read from the file's source (never run).

The runner (focal.adapters.python_tools) calls the function with keyword arguments: each input that has a
value, `customer_id` when the function declares it (the authenticated customer), and `idempotency_key` for
a side-effecting tool whose function declares it (or takes **kwargs). So every call fails when
- an input is not a parameter the function takes by name (no parameter of that name and no **kwargs, or a
  positional-only one, before '/');
- a parameter without a default is filled by none of these (not an input; `idempotency_key` of a tool
  without side effects);
and a call without an optional input (`required: false`) fails when its parameter has no default.
A decorated function is not judged: what the decorator makes of its signature is known only by running it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from focal.config.collector import Collector
from focal.config.hints import meant
from focal.models.agent import AgentConfig, Tool, ToolKind, ToolParameter
from focal.settings import get_settings
from focal.tool_files import function_definition

FROM_THE_RUNNER = "customer_id"  # always passed when declared: the authenticated customer
KEY = "idempotency_key"  # passed to side-effecting tools only


def _parameters(args: ast.arguments) -> list[tuple[str, bool, bool]]:
    """(name, has a default, positional-only) of each named parameter, in order."""
    positional = [*args.posonlyargs, *args.args]
    first_default = len(positional) - len(args.defaults)
    out = [(a.arg, i >= first_default, i < len(args.posonlyargs)) for i, a in enumerate(positional)]
    return out + [(a.arg, d is not None, False) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]


@dataclass(frozen=True)
class _Signature:
    """A function as the runner will call it: its named parameters and whether it takes **kwargs."""

    params: list[tuple[str, bool, bool]]  # (name, has a default, positional-only), in order
    takes_any: bool
    where: str  # "function 'name' in 'file.py'", for the messages

    def parameter(self, name: str) -> tuple[bool, bool] | None:
        """(has a default, positional-only) of the parameter `name`, or None when there is none."""
        return next(((default, only) for p, default, only in self.params if p == name), None)


def _input_problem(sig: _Signature, name: str, spec: ToolParameter) -> str | None:
    """Why a call with the input `name` (or, for an optional one, without it) fails, or None."""
    found = sig.parameter(name)
    if found is None:
        if sig.takes_any:
            return None
        listed = ", ".join(p for p, _, _ in sig.params) or "none"
        known = {p for p, _, _ in sig.params}
        return (f"{sig.where} has no parameter '{name}'{meant(name, known)}, so every call fails (it is passed as "
                f"{name}=...); its parameters: {listed}")
    default, positional_only = found
    if positional_only:
        return (f"parameter '{name}' of {sig.where} is positional-only (before '/'), but arguments are passed by "
                "name, so every call fails; remove the '/'")
    if not spec.required and not default:
        return (f"input '{name}' is optional (required: false) but parameter '{name}' of {sig.where} has no default, "
                f"so a call without a {name} fails; give the parameter a default ({name}=None) or make the input required")
    return None


def _parameter_problem(sig: _Signature, t: Tool, name: str, default: bool, positional_only: bool) -> str | None:
    """Why a parameter without a default is left unfilled by every call, or None when something fills it."""
    if default or name in t.input or (name == FROM_THE_RUNNER and not positional_only):
        return None
    if name == KEY and not positional_only:
        if t.side_effect:
            return None
        return (f"parameter '{KEY}' of {sig.where} has no default and is given only to a side_effect tool, so every "
                f"call fails; give it a default ({KEY}=None) or declare side_effect: true")
    return (f"parameter '{name}' of {sig.where} has no default and is not an input of the tool, so every call fails; "
            "declare it under input, or give it a default")


def signature_problems(c: Collector, agent: AgentConfig, path: tuple[Any, ...], t: Tool) -> None:
    if t.kind != ToolKind.python or not t.entrypoint:
        return
    found = function_definition(t.entrypoint, agent.base_dir, get_settings().tool_modules)
    if found is None or found[0].decorator_list:
        return  # no function to read (entrypoint_problem says why), or one a decorator may reshape
    func, target = found
    sig = _Signature(_parameters(func.args), func.args.kwarg is not None, f"function '{func.name}' in '{target}'")
    head = f"tool '{t.id}': "
    for name, spec in t.input.items():
        problem = _input_problem(sig, name, spec)
        if problem:
            c.add((*path, "input", name), head + problem)
    for name, default, positional_only in sig.params:
        problem = _parameter_problem(sig, t, name, default, positional_only)
        if problem:
            c.add((*path, "entrypoint"), head + problem)
