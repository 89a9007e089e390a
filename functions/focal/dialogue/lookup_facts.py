"""What a step that asks for a yes, or acts, needs from the look-ups before it.

A flow looks an object up (a read-only tool in the action of an earlier step), then asks "Shall I ...?" about it. When
the look-up found nothing (it answered with its facts unknown), or never ran, the question would be about an object
nobody knows: the customer would be asked to confirm something that does not exist. Before the flow asks or acts, the
facts the step shows or uses (its `confirmation_prompt`'s placeholders, its action's inputs) that an earlier look-up
fills must be known, and a look-up about them that declares `found` must have said true; when not, the flow says what
it could not find and ends (focal.dialogue.flow).

Branching on the look-up's answer (`when: not found`) says it in the agent's own words; this is the floor under a flow
without that branch (validate warns of it: focal.config.lookup_warnings).
"""

from __future__ import annotations

from typing import Any

from focal.models.agent import AgentConfig, Scenario, Step, Tool
from focal.tool_inputs import read_variables
from focal.variables import placeholders


def steps_before(scenario: Scenario, step_id: str) -> list[Step]:
    """The steps from which `step_id` can be reached along transitions (not itself unless it is on a cycle)."""
    leads_to: dict[str, set[str]] = {}
    for st in scenario.steps:
        for t in st.transitions:
            if t.target is not None:
                leads_to.setdefault(t.target, set()).add(st.id)
    seen: set[str] = set()
    todo = [step_id]
    while todo:
        for source in leads_to.get(todo.pop(), set()):
            if source not in seen:
                seen.add(source)
                todo.append(source)
    return [st for st in scenario.steps if st.id in seen]


def lookups_before(agent: AgentConfig, scenario: Scenario, step_id: str) -> list[Tool]:
    """The read-only tools the steps leading to `step_id` run, as the scenario lists them, each once."""
    out: dict[str, Tool] = {}
    for st in steps_before(scenario, step_id):
        for tool_id in st.action:
            tool = agent.tool(tool_id)
            if tool is not None and not tool.side_effect:
                out.setdefault(tool.id, tool)
    return list(out.values())


def facts_used(agent: AgentConfig, step: Step) -> set[str]:
    """The variables a step shows when it asks (its confirmation prompt) or uses when it acts (its action's inputs)."""
    names = placeholders(step.confirmation_prompt) if step.requires_confirmation else set()
    for tool_id in step.action:
        tool = agent.tool(tool_id)
        if tool is not None:
            names |= set(read_variables(tool))
    return names


def acts(agent: AgentConfig, step: Step) -> bool:
    """The step asks for a yes, or its action changes something."""
    return step.requires_confirmation or any((t := agent.tool(tool_id)) is not None and t.side_effect
                                             for tool_id in step.action)


def found_variable(tool: Tool) -> str | None:
    """The variable that says whether the look-up found what it was asked for (its `found` output), if declared."""
    return tool.output.get(tool.found) if tool.found else None


def relevant_lookups(agent: AgentConfig, scenario: Scenario, step: Step) -> list[Tool]:
    """The earlier look-ups about what the step shows or acts on: those whose facts it uses, and those asked about a
    value its action takes (a look-up by ticket number before an action on that ticket number)."""
    used = facts_used(agent, step)
    return [tool for tool in lookups_before(agent, scenario, step.id)
            if used & (set(tool.output.values()) | set(read_variables(tool)))]


def unknown_facts(agent: AgentConfig, scenario: Scenario | None, step: Step,
                  variables: dict[str, Any]) -> list[tuple[Tool, list[str]]]:
    """(look-up, why its object is unknown) for each earlier look-up about what the step shows or acts on that said it
    found nothing (its `found` output not true) or left a fact the step uses unknown (nothing found, or it did not
    run)."""
    if scenario is None or not acts(agent, step):
        return []
    used = facts_used(agent, step)
    out = []
    for tool in relevant_lookups(agent, scenario, step):
        flag = found_variable(tool)
        if flag is not None and variables.get(flag) is not True:
            out.append((tool, [flag]))
            continue
        own_inputs = set(read_variables(tool))
        unknown = sorted(n for n in set(tool.output.values()) & used - own_inputs if variables.get(n) in (None, ""))
        if unknown:
            out.append((tool, unknown))
    return out


def named_object(agent: AgentConfig, tool: Tool, variables: dict[str, Any]) -> str:
    """What the customer named that the look-up did not find, in words: "ticket number T-77"."""
    parts = []
    for name in read_variables(tool):
        value = variables.get(name)
        if value in (None, ""):
            continue
        definition = agent.field(name)
        label = (definition.display_name if definition and definition.display_name else name.replace("_", " "))
        label = label if label[:2].isupper() else label[:1].lower() + label[1:]  # mid-sentence; "PIN" stays
        parts.append(f"{label} {value}")
    return " and ".join(parts) or "what you asked about"


def failed_lookups(agent: AgentConfig, scenario: Scenario | None, variables: dict[str, Any]) -> list[tuple[Tool, list[str]]]:
    """(look-up, the flow's slots it was asked about) for each look-up of the flow that said it found nothing."""
    if scenario is None:
        return []
    slots = {slot.name for st in scenario.steps for slot in st.slots}
    out = []
    for tool_id in dict.fromkeys(t for st in scenario.steps for t in st.action):
        tool = agent.tool(tool_id)
        flag = found_variable(tool) if tool is not None and not tool.side_effect else None
        asked = [n for n in read_variables(tool) if n in slots] if tool is not None else []
        if tool is not None and flag is not None and variables.get(flag) is False and asked:
            out.append((tool, asked))
    return out
