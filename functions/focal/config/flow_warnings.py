"""Warnings of `focal validate` about steps and field sources: the agent loads and runs, but not as the
author most likely meant.

- A step that asks for confirmation without a `confirmation_prompt`: the offline composer asks in the
  words of the action's tool description, "Do you want me to <description>?", or only "Shall I go
  ahead?" (dialogue/clarify.py `confirmation_question`): never the values the
  action will use; and the model is told to ask with no question to ask (generation/prompt.py).
- A side-effecting tool in a step's `action` at a step that does not ask first (`requires_confirmation`
  false): it runs as soon as the step completes, on the customer's last answer alone; and a guard of it
  reading `customer_confirmed` (true only after a yes at a step that asks, dialogue/flow.py) blocks it.
- Two tools of one step's action filling the same variables from different inputs (alternative lookups): the
  step runs both and waits for both tools' inputs.
- A privileged field whose `sources` list `message` or `response`: privileged wins, so those sources
  are ignored (sensing/provenance.py, enforcement/variables.py): the declaration says two things.
  Only a `sources` the file writes is reported (left out, it defaults to every source).
"""

from __future__ import annotations

import ast

from focal import expressions
from focal.config.collector import Collector
from focal.config.hints import quoted
from focal.dialogue.clarify import confirmation_question, confirmation_tool
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, Step
from focal.tool_inputs import read_variables

CONFIRMED = "customer_confirmed"  # enforcement/guards.py
_IGNORED_WHEN_PRIVILEGED = {
    "message": "what the customer says",
    "response": "what the agent's own replies state",
}


def flow_warnings(c: Collector, agent: AgentConfig) -> None:
    for i, s in enumerate(agent.scenarios):
        for j, st in enumerate(s.steps):
            path = ("scenarios", i, "steps", j)
            if st.requires_confirmation and not st.confirmation_prompt.strip():
                inputs = list(dict.fromkeys(n for t in st.action if (tool := agent.tool(t)) for n in read_variables(tool)))
                reads = f" (it may read variables: {', '.join('{' + n + '}' for n in inputs)})" if inputs else ""
                question, source = asked_instead(agent, st)
                c.add((*path, "requires_confirmation"),
                      f"step '{st.id}' asks the customer to confirm but has no confirmation_prompt, so the customer is "
                      f"asked only {quoted(question)} ({source}, without the values the action will use) and a model "
                      f"is given no question to ask; add a confirmation_prompt that says what will be done{reads}",
                      "warning")
            _alternatives(c, agent, path, st)
            if st.requires_confirmation:
                continue
            for k, tool_id in enumerate(st.action):
                tool = agent.tool(tool_id)
                if tool is not None and tool.side_effect:
                    c.add((*path, "action", k), _unconfirmed(agent, st.id, tool_id), "warning")
    for i, f in enumerate(agent.profile_field_definitions):
        if not f.privileged or "sources" not in f.model_fields_set:
            continue
        for source, what in _IGNORED_WHEN_PRIVILEGED.items():
            if source in f.sources:
                c.add(("profile_field_definitions", i, "sources"),
                      f"'{source}' in the sources of privileged field '{f.field_name}' is ignored: a privileged field is "
                      f"set only by tools or the profile store, never from {what}, so the sources say something the "
                      f"agent does not do; remove '{source}' from sources (or, if it may really come from there, remove "
                      "privileged: true)", "warning")


def _alternatives(c: Collector, agent: AgentConfig, path: tuple, step: Step) -> None:
    """Two tools of one step's action filling exactly the same variables from different inputs read as
    alternatives ("look the customer up by e-mail or by name and zip"), but a step runs every tool it lists, each
    needing all its inputs: the one whose inputs the customer did not give fails the step."""
    tools = [t for tool_id in step.action if (t := agent.tool(tool_id)) is not None]
    for k, first in enumerate(tools):
        for second in tools[k + 1:]:
            shared = sorted(set(first.output.values()))
            if shared and set(second.output.values()) == set(shared) \
                    and set(read_variables(first, True)) != set(read_variables(second, True)):
                c.add((*path, "action"),
                      f"tools '{first.id}' and '{second.id}' both fill {', '.join(shared)} from different inputs, as "
                      f"alternatives would; a step runs every tool in its action and waits for all their inputs, so the "
                      f"step fails when the customer gives only one tool's inputs; put each in its own step, chosen by "
                      f"transitions on what the customer gave (when: ... != None)", "warning")


def asked_instead(agent: AgentConfig, step: Step) -> tuple[str, str]:
    """(the question the customer is asked at a confirmation step without a prompt, where it comes from)."""
    tool = confirmation_tool(agent, step)
    return confirmation_question(agent, step), (f"the description of tool '{tool.id}'" if tool else "a generic question")


def _unconfirmed(agent: AgentConfig, step_id: str, tool_id: str) -> str:
    """Why a side-effecting tool at a step that does not ask is a problem: it runs without a yes, or a guard
    reading customer_confirmed stops it."""
    guards = _confirmation_guards(agent, tool_id)
    certain = [g for g, always in guards if always]
    head = (f"tool '{tool_id}' has side effects (side_effect: true) and step '{step_id}' does not ask the customer first "
            "(requires_confirmation is false), so ")
    if certain:
        effect = (f"guard '{certain[0]}', which needs {CONFIRMED} (false at a step that does not ask), blocks every call "
                  "from this step: the action never runs")
    else:
        effect = "it runs as soon as the step completes, without the customer's yes" + "".join(
            f"; guard '{g}' reads {CONFIRMED}, which stays false at a step that does not ask" for g, _ in guards)
    return head + effect + "; set requires_confirmation: true and a confirmation_prompt on this step"


def _confirmation_guards(agent: AgentConfig, tool_id: str) -> list[tuple[str, bool]]:
    """(rule id, whether it then blocks for certain) of each enabled guard of `tool_id` reading customer_confirmed:
    certain when the expression is customer_confirmed, or an `and` of which it is one part."""
    out = []
    for r in agent.rules:
        if not (r.enabled and r.is_hard_constraint and tool_id in r.guarded_tool_ids and r.enforcement_expression):
            continue
        try:
            tree = expressions.parse(r.enforcement_expression)
        except ExpressionError:
            continue  # reported by semantic_problems
        if CONFIRMED not in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}:
            continue
        body = tree.body
        parts = body.values if isinstance(body, ast.BoolOp) and isinstance(body.op, ast.And) else [body]
        out.append((r.id, any(isinstance(p, ast.Name) and p.id == CONFIRMED for p in parts)))
    return out
