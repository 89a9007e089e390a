"""A guard's bound on a quantity the customer chooses holds on the conversation's total, not on one call.

A cap such as `amount <= 30` on a side-effecting tool is meant as "at most 30 without approval". Checked on each
call alone, it is split: two payments of 25, three of 10, 20 and 30, the same 25 asked for twice in two flows. So
for each numeric argument of a side-effecting tool whose value the customer's message can give (its variable lists
`message` among its sources: an amount, a count, a number of months), the session keeps the total its calls moved
(`Session.running_totals`, key "tool.argument"): calls that ran, and those whose outcome is unknown (they may have).
A guard of such a call must hold twice: on the call's own arguments (a lower bound is never met by adding up) and
on the arguments with each such value replaced by the total it would bring the conversation to. Values a tool or
the business's systems give (a booking's price) are not the customer's choice and are checked per call only.

The totals live on the session: starting over, switching flows and a new yes do not reset them.
"""

from __future__ import annotations

from typing import Any

from focal.models.agent import AgentConfig, Tool
from focal.models.session import Session

NUMERIC = ("money", "integer", "number")


def summed_arguments(agent: AgentConfig, tool: Tool) -> list[str]:
    """The tool's numeric arguments a customer chooses: summed over the conversation (empty: no side effect)."""
    if not tool.side_effect:
        return []
    names = []
    for name, spec in tool.input.items():
        field = agent.field(tool.arguments.get(name, name))
        if spec.type in NUMERIC and field is not None and "message" in field.sources:
            names.append(name)
    return names


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def with_totals(agent: AgentConfig, tool: Tool, arguments: dict[str, Any], session: Session | None) -> dict[str, Any]:
    """The arguments with each summed value replaced by the conversation's total once this call ran; {} when the
    call would move nothing on top of an earlier call (its own check is the whole check)."""
    if session is None:
        return {}
    totals = {}
    for name in summed_arguments(agent, tool):
        value, before = _number(arguments.get(name)), session.running_totals.get(f"{tool.id}.{name}", 0.0)
        if value is not None and before:
            totals[name] = before + value
    return {**arguments, **totals} if totals else {}


def add(agent: AgentConfig, tool: Tool, arguments: dict[str, Any], session: Session) -> None:
    """Count a call that ran (or may have) into the conversation's totals."""
    for name in summed_arguments(agent, tool):
        value = _number(arguments.get(name))
        if value is not None:
            key = f"{tool.id}.{name}"
            session.running_totals[key] = session.running_totals.get(key, 0.0) + value


def merged(stored: dict[str, float], turn: dict[str, float]) -> dict[str, float]:
    """The totals to keep when another turn saved the session meanwhile: the higher of each."""
    return {k: max(stored.get(k, 0.0), turn.get(k, 0.0)) for k in {*stored, *turn}}
