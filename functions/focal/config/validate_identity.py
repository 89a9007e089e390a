"""A side-effecting tool that runs for whoever names an account, in an agent that has an identity check.

An agent that declares an identity check (a tool whose output fills a privileged yes/no field: "verified",
"identity_verified") says that some actions are only for the customer it has checked. A side-effecting tool that
no guard of that field stops runs for anyone who types a number: the numbers the agent's own prompts print as
examples ("like HR204518"), a number read off a letter. Validation warns at the tool's `side_effect`, unless the
tool checks the customer itself: a python function that takes `customer_id` (the runner passes the authenticated
customer, never a value from the conversation), or the agent's hand-off tool, which anyone may reach.
"""

from __future__ import annotations

from focal.config.collector import Collector
from focal.errors import ExpressionError
from focal.expressions import names as expression_names
from focal.models.agent import AgentConfig, Tool, ToolKind
from focal.settings import get_settings
from focal.tool_files import function_definition

FROM_THE_RUNNER = "customer_id"


def identity_fields(agent: AgentConfig) -> set[str]:
    """The privileged yes/no fields a tool fills: what the agent's identity checks decide."""
    return {name for t in agent.tools for name in t.output.values()
            if (f := agent.field(name)) is not None and f.privileged and f.field_type == "boolean"}


def _guarded_by(agent: AgentConfig, tool_id: str, fields: set[str]) -> bool:
    for r in agent.rules:
        if not (r.enabled and r.is_hard_constraint and tool_id in r.guarded_tool_ids and r.enforcement_expression):
            continue
        try:
            if expression_names(r.enforcement_expression) & fields:
                return True
        except ExpressionError:
            continue  # reported by the expression checks
    return False


def _takes_the_customer(agent: AgentConfig, tool: Tool) -> bool:
    if tool.kind != ToolKind.python or not tool.entrypoint:
        return False
    found = function_definition(tool.entrypoint, agent.base_dir, get_settings().tool_modules)
    if found is None:
        return False
    args = found[0].args
    return any(a.arg == FROM_THE_RUNNER for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))


def identity_warnings(c: Collector, agent: AgentConfig) -> None:
    fields = identity_fields(agent)
    if not fields:
        return
    shown = ", ".join(sorted(fields))
    for i, t in enumerate(agent.tools):
        if not t.side_effect or t.id == agent.handoff_tool or set(t.output.values()) & fields:
            continue
        if _guarded_by(agent, t.id, fields) or _takes_the_customer(agent, t):
            continue
        c.add(("tools", i, "side_effect"),
              f"tool '{t.id}' changes something, but no guard reads the identity check ({shown}) and it does not take "
              f"'{FROM_THE_RUNNER}': it runs for anyone who types a number, such as the one a prompt prints as its "
              f"example. Guard it with a hard rule on {shown} (guarded_tool_ids), or let its function take "
              f"'{FROM_THE_RUNNER}' and check the customer itself", "warning")
