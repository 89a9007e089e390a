"""The `tool_calls` expectation of a conversation test, with optional arguments.

    tool_calls: [look_up_booking, {pay_back: {booking_ref: B-17}}]
    tool_calls: {pay_back: {booking_ref: B-17}}      # the same as a list of one-key mappings

Each entry names a tool that must have run with status ok; an entry written as `{tool: {argument: value}}`
also asks that one such call had these arguments (the others it had are not looked at). Values compare
as numbers when both read as numbers (`30` matches `30.0` and `"30.00"`), else as text, ignoring case
and surrounding spaces. `tool_calls: []` asks that no call was even attempted (a call a guard stopped is
an attempt: see `blocked_tools`). Argument names must be declared in the tool's `input`.
"""

from __future__ import annotations

from typing import Any

from focal.config.hints import meant
from focal.models.agent import AgentConfig
from focal.web.saved_test import SCALARS


def tool_id(entry: Any) -> str:
    """The tool an entry names: the string itself, or the single key of `{tool: {argument: value}}`."""
    return entry if isinstance(entry, str) else next(iter(entry))


def arguments_of(entry: Any) -> dict[str, Any]:
    return {} if isinstance(entry, str) else dict(next(iter(entry.values())) or {})


def entries(value: Any) -> Any:
    """A `tool_calls` expectation as its list of entries: a mapping `{tool: {argument: value}, ...}` is one entry per
    tool, as in the list form."""
    if isinstance(value, dict):
        return [{name: args} for name, args in value.items()]
    return value


def tool_calls_problems(agent: AgentConfig, value: Any) -> list[str]:
    """What is wrong with a `tool_calls` expectation, each problem a message of its own."""
    shape = ("expectation 'tool_calls' must be a list of tool ids and {tool: {argument: value}} entries, or one mapping "
             f"{{tool: {{argument: value}}}}, got {value!r}")
    value = entries(value)
    if not isinstance(value, list):
        return [shape]
    tools = {t.id: t for t in agent.tools}
    problems: list[str] = []
    for entry in value:
        if isinstance(entry, dict) and len(entry) == 1 and isinstance(next(iter(entry)), str):
            args = next(iter(entry.values()))
            if args is not None and (not isinstance(args, dict) or not all(isinstance(v, SCALARS) for v in args.values())):
                problems.append(f"expectation 'tool_calls' gives {tool_id(entry)!r} arguments {args!r}: write a mapping "
                                "of argument names to values")
                continue
        elif not isinstance(entry, str):
            return [shape]
        name = tool_id(entry)
        tool = tools.get(name)
        if tool is None:
            problems.append(f"unknown tool {name!r} in 'tool_calls'{meant(name, tools, 'the agent has')}")
            continue
        for argument in sorted(set(arguments_of(entry)) - set(tool.input)):
            hint = meant(argument, tool.input)
            hint = f"{hint[:-1]}; its input: {sorted(tool.input)})" if hint else f" (its input: {sorted(tool.input)})"
            problems.append(f"tool {name!r} has no argument {argument!r}{hint}")
    return problems


def _same(expected: Any, actual: Any) -> bool:
    if expected == actual:
        return True
    if not isinstance(expected, bool) and not isinstance(actual, bool):
        try:
            return float(expected) == float(actual)
        except (TypeError, ValueError):
            pass
    return str(expected).strip().casefold() == str(actual).strip().casefold()


def _matches(call: dict[str, Any], wanted: dict[str, Any]) -> bool:
    got = call.get("arguments") or {}
    return all(name in got and _same(value, got[name]) for name, value in wanted.items())


def _quote(value: Any) -> str:
    return repr(value) if not isinstance(value, list) else "[" + ", ".join(repr(v) for v in value) + "]"


def _ran(call: dict[str, Any]) -> str:
    """A call as the report shows it: 'tool (status)', or 'tool (status: error)'."""
    error = f": {call['error']}" if call.get("error") else ""
    return f"{call['tool_id']} ({call.get('status')}{error})"


def _not_run(wanted: list[Any], ok: list[dict[str, Any]], ran: list[str]) -> list[str]:
    """The tools `wanted` names that no call with status ok ran, as one failure."""
    missing = [tool_id(entry) for entry in wanted if not any(t["tool_id"] == tool_id(entry) for t in ok)]
    if not missing:
        return []
    return [f"expected tool calls {_quote(missing)} with status ok, got {_quote(ran) if ran else 'none'}"]


def _argument_failure(entry: Any, ok: list[dict[str, Any]]) -> list[str]:
    """An entry with arguments whose tool ran, but in no call with these arguments."""
    args = arguments_of(entry)
    same_tool = [t for t in ok if t["tool_id"] == tool_id(entry)]
    if not args or not same_tool or any(_matches(t, args) for t in same_tool):
        return []
    got_args = [t.get("arguments") or {} for t in same_tool]
    return [f"expected {tool_id(entry)} with arguments {args!r}, got {_quote(got_args)}"]


def tool_calls_failures(wanted: list[Any], tool_calls: list[dict[str, Any]]) -> list[str]:
    """'expected X, got Y' when the turn's tool calls do not meet `wanted` (an empty list: no call at all)."""
    ran = [_ran(t) for t in tool_calls]
    wanted = entries(wanted)
    if not wanted:
        return [f"expected no tool calls, got {_quote(ran)}"] if tool_calls else []
    ok = [t for t in tool_calls if t.get("status") == "ok"]
    return _not_run(wanted, ok, ran) + [failure for entry in wanted for failure in _argument_failure(entry, ok)]
