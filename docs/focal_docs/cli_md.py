"""The `focal` command's parser → Markdown: every command and subcommand, its usage, options and example."""

from __future__ import annotations

import argparse
from typing import Any


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _help(action: argparse.Action, prog: str) -> str:
    """The option's help as `--help` prints it (`%(default)s` and the like filled in)."""
    text = action.help or ""
    if text == argparse.SUPPRESS:
        return ""
    params: dict[str, Any] = {**vars(action), "prog": prog}
    try:
        return text % params
    except (KeyError, TypeError, ValueError):
        return text


def _flags(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    metavar = ""
    if action.nargs != 0:
        metavar = " " + (action.metavar if isinstance(action.metavar, str) else action.dest.upper())
    return ", ".join(f"`{flag}{metavar}`" for flag in action.option_strings)


def _default(action: argparse.Action) -> str:
    if action.option_strings and action.nargs == 0:
        return "off"
    default = action.default
    if default in (None, [], "", argparse.SUPPRESS):
        return "required" if action.required else "—"
    return f"`{default}`"


def _options(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        extra = f" (one of {', '.join(f'`{c}`' for c in action.choices)})" if action.choices else ""
        repeat = " Repeatable." if isinstance(action, argparse._AppendAction) else ""
        rows.append(f"| {_flags(action)} | {_cell(_default(action))} | {_cell(_help(action, parser.prog) + extra + repeat)} |")
    if not rows:
        return []
    return ["| argument | default | what it does |", "|---|---|---|", *rows, ""]


def _usage(parser: argparse.ArgumentParser) -> str:
    return " ".join(parser.format_usage().removeprefix("usage:").split())


def cli_reference() -> str:
    from focal.cli.help_texts import subcommands
    from focal.main import parser

    root = parser()
    lines = ["```", _usage(root), "```", ""] + _options(root)
    for path, sub in subcommands(root):
        lines += [f"## `focal {path}`", ""]
        if sub.description:
            lines += [sub.description[0].upper() + sub.description[1:] + ("" if sub.description.endswith(".") else "."), ""]
        lines += ["```", _usage(sub), "```", ""]
        lines += _options(sub)
        if sub.epilog:
            lines += ["Example:", "", "```", *[line.strip() for line in sub.epilog.splitlines()[1:]], "```", ""]
    return "\n".join(lines)
