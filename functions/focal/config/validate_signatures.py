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
from typing import Any

from focal.config.collector import Collector
from focal.config.hints import meant
from focal.models.agent import AgentConfig, Tool, ToolKind
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


def signature_problems(c: Collector, agent: AgentConfig, path: tuple[Any, ...], t: Tool) -> None:
    if t.kind != ToolKind.python or not t.entrypoint:
        return
    found = function_definition(t.entrypoint, agent.base_dir, get_settings().tool_modules)
    if found is None or found[0].decorator_list:
        return  # no function to read (entrypoint_problem says why), or one a decorator may reshape
    func, target = found
    params = _parameters(func.args)
    by_name = {name: (default, positional_only) for name, default, positional_only in params}
    takes_any = func.args.kwarg is not None
    where = f"function '{func.name}' in '{target}'"
    head = f"tool '{t.id}': "
    for name, spec in t.input.items():
        if name in by_name and by_name[name][1]:
            c.add((*path, "input", name), f"{head}parameter '{name}' of {where} is positional-only (before '/'), but "
                  "arguments are passed by name, so every call fails; remove the '/'")
        elif name not in by_name and not takes_any:
            listed = ", ".join(p for p, _, _ in params) or "none"
            c.add((*path, "input", name), f"{head}{where} has no parameter '{name}'{meant(name, by_name)}, so every "
                  f"call fails (it is passed as {name}=...); its parameters: {listed}")
        elif name in by_name and not spec.required and not by_name[name][0]:
            c.add((*path, "input", name), f"{head}input '{name}' is optional (required: false) but parameter '{name}' "
                  f"of {where} has no default, so a call without a {name} fails; give the parameter a default "
                  f"({name}=None) or make the input required")
    for name, default, positional_only in params:
        if default or name in t.input or (name == FROM_THE_RUNNER and not positional_only):
            continue
        if name == KEY and not positional_only:
            if not t.side_effect:
                c.add((*path, "entrypoint"), f"{head}parameter '{KEY}' of {where} has no default and is given only to a "
                      f"side_effect tool, so every call fails; give it a default ({KEY}=None) or declare side_effect: true")
            continue
        c.add((*path, "entrypoint"), f"{head}parameter '{name}' of {where} has no default and is not an input of the "
              "tool, so every call fails; declare it under input, or give it a default")
