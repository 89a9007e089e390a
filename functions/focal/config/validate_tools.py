"""Checks of one tool definition: its arguments resolve, its entrypoint, URL, body, headers or function
are usable for its kind, and no output is written past the field that was meant to receive it."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from focal import tool_templates
from focal.config.collector import Collector
from focal.config.hints import did_you_mean
from focal.models.agent import AgentConfig, Tool, ToolKind
from focal.settings import get_settings
from focal.tool_files import entrypoint_problem, parse_tool_file

_LAMBDA_FUNCTION = re.compile(
    r"^(arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:\d{12}:function:)?[A-Za-z0-9_-]{1,140}(:(\$LATEST|[A-Za-z0-9_-]+))?$"
)


def tool_problems(c: Collector, agent: AgentConfig, path: tuple[Any, ...], t: Tool, names: set[str]) -> None:
    """Kind-specific checks of one tool (the model already ensured each kind has its own fields)."""
    _argument_problems(c, path, t, names)
    _input_problems(c, agent, path, t, names)
    _output_problems(c, agent, path, t)
    if t.kind == ToolKind.python and t.entrypoint:
        _entrypoint_problems(c, agent, path, t.entrypoint)
    if t.kind == ToolKind.http and t.url:
        _url_problems(c, path, t, t.url)
        if t.body is not None:
            _body_problems(c, path, t, t.body)
        _header_problems(c, path, t)
    if t.kind == ToolKind.lambda_ and t.function and not _LAMBDA_FUNCTION.match(t.function):
        c.add((*path, "function"), "expected a function name, 'name:alias' or a function ARN")
    if t.retries and not t.may_retry:
        c.add((*path, "retries"), "a side_effect tool is never retried unless it is declared idempotent: true")


def _argument_problems(c: Collector, path: tuple[Any, ...], t: Tool, names: set[str]) -> None:
    """Each `arguments:` entry maps an input of the tool to an expression over declared names."""
    for name in t.arguments:
        if name not in t.input:
            c.add((*path, "arguments", name), f"'{name}' is not an input of this tool" + did_you_mean(name, set(t.input)))
        else:
            c.expression((*path, "arguments", name), t.arguments[name], names)


def _input_problems(c: Collector, agent: AgentConfig, path: tuple[Any, ...], t: Tool, names: set[str]) -> None:
    """An input no argument maps is filled from the variable of its name: one must be declared (an enum one with
    the values it may take)."""
    for name, spec in t.input.items():
        if name in t.arguments:
            continue
        if name not in names:
            c.add((*path, "input", name), f"argument '{name}' is not a declared variable, so it can never be filled; "
                  f"map it to one with arguments: {{{name}: <variable>}}" + did_you_mean(name, names))
        elif spec.type == "enum" and not ((f := agent.field(name)) is not None and f.allowed_values):
            c.add((*path, "input", name), f"argument '{name}' is an enum, but field '{name}' lists no allowed_values, so "
                  "any text passes; list the values on the field", "warning")


def _entrypoint_problems(c: Collector, agent: AgentConfig, path: tuple[Any, ...], entrypoint: str) -> None:
    # The rules live with the runner, which checks them again before loading anything.
    problem = entrypoint_problem(entrypoint, agent.base_dir, get_settings().tool_modules)
    if problem:
        target, _, func = entrypoint.partition(":")
        c.add((*path, "entrypoint"), problem + did_you_mean(func, _functions_in(agent.base_dir, target)))


def _url_problems(c: Collector, path: tuple[Any, ...], t: Tool, url: str) -> None:
    """A fixed host, no secret, and each placeholder a required input."""
    if not re.match(r"^https?://[^/{}?#]+", url):
        c.add((*path, "url"), "expected an absolute http:// or https:// URL with a fixed host (no placeholder in the host)")
    if tool_templates.SECRET_LIKE.search(url):
        c.add((*path, "url"), "secrets are only allowed in headers, write '${secret:NAME}' in a header value")
    for name in dict.fromkeys(tool_templates.placeholders(url)):
        if name not in t.input:
            c.add((*path, "url"), f"placeholder '{{{name}}}' is not an input of this tool")
        elif not t.input[name].required:
            c.add((*path, "url"), f"placeholder '{{{name}}}' names an optional input; url placeholders must be required")


def _body_problems(c: Collector, path: tuple[Any, ...], t: Tool, body: Any) -> None:
    """Each placeholder an input; no secret (a body is never filled with one)."""
    for where, name in tool_templates.body_placeholders(body):
        if name not in t.input:
            c.add((*path, "body", *where), f"placeholder '{{{name}}}' is not an input of this tool")
    for where, ref in tool_templates.body_secret_references(body):
        c.add((*path, "body", *where), f"'{ref}': secrets are only filled in headers; in a body it would be "
              "sent as this literal text (write '${secret:NAME}' in a header value)")


def _header_problems(c: Collector, path: tuple[Any, ...], t: Tool) -> None:
    """Constants and well-formed secret references only, never the secret that signs customer tokens."""
    for header, value in t.headers.items():
        for bad in tool_templates.bad_secret_references(value):
            c.add((*path, "headers", header), f"invalid secret reference '{bad}'; write '${{secret:NAME}}' (letters, digits, _ . / -)")
        for name in tool_templates.secret_names(value):
            if name.strip().lower() in tool_templates.RESERVED_SECRETS:
                c.add((*path, "headers", header), f"secret '{name}' signs customer tokens and is never sent to a tool")
        if tool_templates.placeholders(value):
            c.add((*path, "headers", header), "header values take constants and '${secret:NAME}' only, not '{argument}'")


def _functions_in(base_dir: str | None, target: str) -> list[str]:
    """Public functions a tool file inside the agent's folder defines (for a did-you-mean); [] if unreadable."""
    if not base_dir or not target.endswith(".py"):
        return []
    folder = Path(base_dir).resolve()
    path = (folder / target).resolve()
    if folder not in path.parents:
        return []
    try:
        tree = parse_tool_file(path, target)
    except ValueError:  # entrypoint_problem has said why
        return []
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]


OUTPUT_SLIP = "no tool's output fills that field"  # a finding of the whole document (see gate.WHOLE_DOCUMENT)


def _output_problems(c: Collector, agent: AgentConfig, path: tuple[Any, ...], t: Tool) -> None:
    """An output mapped to a name no field declares, close to a field no tool's output fills: a slip that
    leaves that field empty. (An undeclared name is otherwise a plain session variable, on purpose: the
    model sees it among the known facts, and a later tool may take it as an argument.)"""
    fields = {f.field_name for f in agent.profile_field_definitions}
    filled = {v for tool in agent.tools for v in tool.output.values()}
    for key, var in t.output.items():
        hint = did_you_mean(var, fields - filled) if var not in fields else ""
        if hint:
            c.add((*path, "output", key), f"output '{key}' is mapped to '{var}', which is not a declared field{hint} "
                                          f"({OUTPUT_SLIP})")
