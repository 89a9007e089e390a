"""Checks of an action guard (a hard constraint with `guarded_tool_ids`): it guards side-effecting tools
that exist, has an expression, and that expression reads only what has a value when the guard runs.

A guard is evaluated before its tool runs, on the call's arguments and the turn's variables (field
defaults < profile < session < slots; enforcement/guards.py). A field read only from the agent's own
replies (`sources: [response]`) is never among them: what a reply states is read when the reply is
checked, after the tools ran, and is not kept in the session (stages/enforce.py). At tool time such a
field is always its default, or has no value, so a guard reading it decides nothing about the call.
"""

from __future__ import annotations

from typing import Any

from focal.config.collector import GUARD_BUILTINS, Collector
from focal.config.hints import closest, did_you_mean
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule, Tool

# Sources that can give a field a value before a tool runs (a tool's output is checked apart).
_BEFORE_TOOLS = frozenset({"message", "profile", "tool"})


def _inputs(t: Tool) -> str:
    return ", ".join(t.input) or "none"


def _builtin_hint(name: str, names: set[str]) -> str:
    """'; did you mean 'customer_confirmed' …?' when a guard's unknown name is closest to a built-in, else ''."""
    close = closest(name, names | GUARD_BUILTINS)
    if close in GUARD_BUILTINS:
        return f"; did you mean '{close}', the built-in that is true once the customer has said yes at a step that asks?"
    return ""


def reply_only_fields(agent: AgentConfig) -> dict[str, ProfileFieldDefinition]:
    """Fields only the agent's replies set: `response` among their sources and none of message, profile or
    tool, and no tool's output mapped to them (a slot of that name is refused: the customer may not set it)."""
    filled = {v for t in agent.tools for v in t.output.values()}
    return {f.field_name: f for f in agent.profile_field_definitions
            if "response" in f.sources and not set(f.sources) & _BEFORE_TOOLS and f.field_name not in filled}


def _reply_only(c: Collector, agent: AgentConfig, parts: tuple[Any, ...], r: Rule, used: set[str], guarded: list[Tool]) -> None:
    """A guard that reads a field only replies set: it is always that field's default at tool time."""
    replies = reply_only_fields(agent)
    tools = ", ".join(f"'{t}'" for t in r.guarded_tool_ids)
    inputs = "; ".join(f"'{t.id}' takes {_inputs(t)}" for t in guarded)
    for name in sorted(used & replies.keys()):
        f = replies[name]
        if f.default is None:
            effect = f"'{name}' never has a value, so this guard blocks every call of {tools}"
        else:
            effect = (f"'{name}' is always its default, {f.default!r}, whatever the call does, so this guard gives the "
                      "same verdict on every call")
        c.add(parts, f"guard reads '{name}', which only the agent's replies set (sources: [{', '.join(f.sources)}]): a guard "
                     f"runs before the tool, on the call's arguments and the session, where {effect}; guard what the call "
                     f"uses instead ({inputs or 'a field the tool takes'}), or, to check what replies say, make it a rule "
                     "without guarded_tool_ids")


def guard_problems(c: Collector, agent: AgentConfig, path: tuple[Any, ...], r: Rule, names: set[str]) -> None:
    """An action guard: a hard constraint with an expression, before tools that exist (reads included),
    reading only declared names, `customer_confirmed` and arguments that every tool it guards takes,
    and no field only the agent's replies set."""
    if not r.is_hard_constraint:
        c.add((*path, "guarded_tool_ids"), "only a hard constraint can guard a tool; set is_hard_constraint: true")
    if not r.enforcement_expression:
        c.add((*path, "guarded_tool_ids"),
              "a guard needs an enforcement_expression, evaluated on each call's arguments before the tool runs")
    tool_ids = [t.id for t in agent.tools]
    guarded: list[Tool] = []
    for j, tool_id in enumerate(r.guarded_tool_ids):
        tool = agent.tool(tool_id)
        if tool is None:
            c.add((*path, "guarded_tool_ids", j), f"tool '{tool_id}' does not exist" + did_you_mean(tool_id, tool_ids))
            continue
        guarded.append(tool)
    if not r.enforcement_expression:
        return
    parts = (*path, "enforcement_expression")
    used = c.names(parts, r.enforcement_expression)
    if used is None:
        return
    c.static(parts, r.enforcement_expression)
    for name in sorted(used - names - GUARD_BUILTINS):
        lacking = [t for t in guarded if name not in t.input]
        builtin = _builtin_hint(name, names)
        if not guarded:
            if builtin:
                c.add(parts, f"name '{name}' is not a declared variable{builtin}")
            else:
                c.undeclared(parts, name, names)
        elif len(lacking) == 1:
            t = lacking[0]
            c.add(parts, f"guard reads '{name}', which tool '{t.id}' does not take (its inputs: {_inputs(t)}) "
                         f"and no field declares{builtin or did_you_mean(name, names)}")
        elif lacking:
            which = " and ".join(f"'{t.id}' (inputs: {_inputs(t)})" for t in lacking)
            c.add(parts, f"guard reads '{name}', which tools {which} do not take and no field declares"
                         f"{builtin or did_you_mean(name, names)}")
    _reply_only(c, agent, parts, r, used, guarded)
