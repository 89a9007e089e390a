"""What `focal validate` says about flows that look something up and then ask or act on it, and about flows that hand
the conversation to a person.

- A tool's `found` must name one of its own outputs, on a read-only tool (an error otherwise).
- A step that asks for a yes, or acts, after a look-up that declares `found` about what the step shows or acts on
  (focal.dialogue.lookup_facts), with no transition before it reading what the look-up returned: when the look-up
  finds nothing the flow still reaches the step, where the engine ends it with its own "I couldn't find ..."; a branch
  says it in the agent's words (a warning). A look-up without `found` cannot say "not found" apart from its other
  facts: the engine's floor then rests on the facts the step shows being unknown.
- A transition with `escalate: true` in an agent without `handoff_tool`: the customer is told a person takes over
  and nothing is handed over (a warning).
"""

from __future__ import annotations

from focal import expressions
from focal.config.collector import Collector
from focal.dialogue.lookup_facts import acts, found_variable, relevant_lookups, steps_before
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, Scenario, Step, Tool


def lookup_problems(c: Collector, agent: AgentConfig) -> None:
    for i, tool in enumerate(agent.tools):
        if tool.found is None:
            continue
        if tool.found not in tool.output:
            outputs = ", ".join(tool.output) or "none"
            c.add(("tools", i, "found"), f"'{tool.found}' is not an output of tool '{tool.id}' (its outputs: {outputs}); "
                  "found names the output key that says whether the look-up found what it was asked for")
        elif tool.side_effect:
            c.add(("tools", i, "found"), f"tool '{tool.id}' changes something (side_effect: true); found is for "
                  "look-ups, whose answer a later step asks or acts on")


def lookup_warnings(c: Collector, agent: AgentConfig) -> None:
    for i, scenario in enumerate(agent.scenarios):
        for j, step in enumerate(scenario.steps):
            path = ("scenarios", i, "steps", j)
            for k, t in enumerate(step.transitions):
                if t.escalate and not agent.handoff_tool:
                    c.add((*path, "transitions", k, "escalate"),
                          f"step '{step.id}' escalates, but the agent has no handoff_tool: the customer is told a "
                          "person will take over and nothing is handed over; name the tool that hands the "
                          "conversation over in handoff_tool", "warning")
            if acts(agent, step):
                for tool in relevant_lookups(agent, scenario, step):
                    if tool.found is not None and not _branched(scenario, step, tool):
                        c.add(path, _unbranched(scenario, step, tool), "warning")


def _branched(scenario: Scenario, step: Step, tool: Tool) -> bool:
    """A transition of a step leading to `step` reads what `tool` returned."""
    outputs = set(tool.output.values())
    for earlier in steps_before(scenario, step.id):
        for t in earlier.transitions:
            if t.when and outputs & _names(t.when):
                return True
    return False


def _unbranched(scenario: Scenario, step: Step, tool: Tool) -> str:
    flag = found_variable(tool)
    return (f"step '{step.id}' of '{scenario.id}' asks or acts on what look-up '{tool.id}' returned, but no transition "
            f"before it reads {flag} (its found output), so a look-up that finds nothing still leads here, where the "
            f"engine ends the flow with \"I couldn't find ...\"; branch on it to say so in the agent's own words, e.g. "
            f"{{target: not_found, when: not {flag}}} with a step not_found whose response_template says it")


def _names(expr: str) -> set[str]:
    try:
        return expressions.names(expr)
    except ExpressionError:
        return set()
