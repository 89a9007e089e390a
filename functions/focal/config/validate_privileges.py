"""A field that decides something and that the customer can also set by saying so.

A field a tool sets (a tool's output mapped to it) or a status the business's record keeps (a yes/no or enum
field that lists `profile` among its sources on purpose)
and that a guard, a hard constraint or a transition reads is a fact the agent acts on: "is_verified",
"plan_tier". When `message` is also among its sources and it is not `privileged`, the customer's message (or
a model's reading of it) can set it too — "I'm verified" would open what the PIN check guards. Validation warns
at the field's `sources`: mark it privileged, or take `message` out of its sources.
"""

from __future__ import annotations

from focal.config.collector import Collector
from focal.errors import ExpressionError
from focal.expressions import names as expression_names
from focal.models.agent import AgentConfig

STATUS_TYPES = ("boolean", "enum")  # what a status or a tier is written as


def _readers(agent: AgentConfig) -> dict[str, list[str]]:
    """field name → what reads it to decide: guards and hard constraints by rule id, transitions by step."""
    out: dict[str, list[str]] = {}

    def note(expr: str, who: str) -> None:
        try:
            used = expression_names(expr)
        except ExpressionError:
            return  # reported by the expression checks
        for name in used:
            out.setdefault(name, []).append(who)

    for r in agent.rules:
        if r.enforcement_expression and r.is_hard_constraint:
            note(r.enforcement_expression, f"{'guard' if r.guarded_tool_ids else 'hard constraint'} '{r.id}'")
    for sc in agent.scenarios:
        for st in sc.steps:
            for t in st.transitions:
                if t.when:
                    note(t.when, f"the transition of step '{sc.id}.{st.id}' to '{t.target}'" if t.target
                         else f"the escalation of step '{sc.id}.{st.id}'")
    return out


def privilege_warnings(c: Collector, agent: AgentConfig) -> None:
    readers = _readers(agent)
    set_by_tool = {var: t.id for t in agent.tools for var in t.output.values()}
    for i, f in enumerate(agent.profile_field_definitions):
        if f.privileged or "message" not in f.sources or f.field_name not in readers:
            continue
        record = [f"tool '{set_by_tool[f.field_name]}'"] if f.field_name in set_by_tool else []
        if "profile" in f.sources and "sources" in f.model_fields_set and f.field_type in STATUS_TYPES:
            record.append("the customer's profile")  # a status the business keeps (listed on purpose, not by default)
        if not record:
            continue  # a value only the customer gives (an amount, a choice): theirs to state
        who = ", ".join(dict.fromkeys(readers[f.field_name]))
        c.add(("profile_field_definitions", i, "sources"),
              f"'{f.field_name}' is set by {' and '.join(record)} and decides {who}, but 'message' is among its "
              "sources and it is not privileged: a customer who says so (or a model reading their message) can set it. "
              "Mark it privileged: true, or take 'message' out of its sources", "warning")
