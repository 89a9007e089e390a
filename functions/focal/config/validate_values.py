"""Where the values an agent reads come from: every `{placeholder}` names a variable something can
fill, every slot can hold what its field reads, and a slot no field declares is read by something.

A variable is filled by a slot, a tool's output, its default, or a source its field declares
(`message`, `profile`, `response`); a field whose only source is `tool` and that no tool's output
fills never has a value, so a text naming it is never said (the composer needs every placeholder).
"""

from __future__ import annotations

from typing import Any

from focal import expressions
from focal.config.collector import GUARD_BUILTINS, Collector, agent_expressions
from focal.config.expr_checks import NUMERIC_TYPES
from focal.config.hints import closest, did_you_mean
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Scenario
from focal.tool_inputs import read_variables
from focal.variables import placeholders

# Wording of the findings that hold only of the whole document (the gate drops them from a repaired one).
NEVER_FILLED = "can never be filled"
UNREAD = "nothing reads it"

# slot type → field types whose values it cannot hold (a slot is read with its field's definition,
# then converted to the slot's type): the slot would never be filled, or filled with a wrong value.
_NEVER_HOLDS = {
    **{t: frozenset({"enum", "boolean", "date", "entity_list"}) for t in NUMERIC_TYPES},
    "boolean": NUMERIC_TYPES | {"date", "entity_list"},
    **{t: frozenset({"entity_list"}) for t in ("string", "id", "enum", "date")},
}
# The other direction: a text slot type (string, id, enum, date) on a number or boolean field converts
# nothing (sensing.extraction.coerce keeps a text as it is), so a value the model reads as text ('1,750',
# 'no') is kept as that text where the field's readers expect a number or true/false.
_TEXT_SLOTS = frozenset({"string", "id", "enum", "date"})
_KEPT_AS_TEXT = {**{t: ("a number", "'1,750' stays '1,750', not the amount 1750") for t in NUMERIC_TYPES},
                 "boolean": ("true or false", "'no' stays the text 'no', which counts as true")}


def templates(agent: AgentConfig) -> list[tuple[tuple[Any, ...], str]]:
    """Every text the offline composer fills with `{variables}`, with its path."""
    out: list[tuple[tuple[Any, ...], str]] = []
    for i, r in enumerate(agent.rules):
        for key in ("response_template", "fallback_text"):
            if getattr(r, key):
                out.append((("rules", i, key), getattr(r, key)))
    for i, s in enumerate(agent.scenarios):
        for j, st in enumerate(s.steps):
            for key in ("confirmation_prompt", "response_template"):
                if getattr(st, key):
                    out.append((("scenarios", i, "steps", j, key), getattr(st, key)))
            for k, slot in enumerate(st.slots):
                out.append((("scenarios", i, "steps", j, "slots", k, "prompt"), slot.prompt))
    for i, f in enumerate(agent.profile_field_definitions):
        if f.prompt:
            out.append((("profile_field_definitions", i, "prompt"), f.prompt))
    return out


def unfilled_fields(agent: AgentConfig) -> dict[str, ProfileFieldDefinition]:
    """Fields nothing ever fills: only `tool` among their sources, no tool output, no slot, no default."""
    filled = {v for t in agent.tools for v in t.output.values()}
    filled |= {slot.name for s in agent.scenarios for st in s.steps for slot in st.slots}
    return {f.field_name: f for f in agent.profile_field_definitions
            if set(f.sources) <= {"tool"} and f.default is None and f.field_name not in filled}


def placeholder_problems(c: Collector, agent: AgentConfig, names: set[str]) -> None:
    """Each placeholder names a declared variable, and one that something fills."""
    unfilled = unfilled_fields(agent)
    fields = {f.field_name for f in agent.profile_field_definitions}
    # outputs mapped to a name no field declares: the likely reason a field stays empty
    stray = {var: (t.id, key) for t in agent.tools for key, var in t.output.items() if var not in fields}
    for parts, template in templates(agent):
        for name in sorted(placeholders(template)):
            if name not in names:
                c.add(parts, f"placeholder '{{{name}}}' is not a declared variable" + did_you_mean(name, names))
            elif name in unfilled:
                close = closest(name, stray)
                hint = f"; tool '{stray[close][0]}' maps its output '{stray[close][1]}' to '{close}'" if close else ""
                sources = unfilled[name].sources
                origin = f"comes only from tools (sources: [{', '.join(sources)}])" if sources else "has no source"
                c.add(parts, f"placeholder '{{{name}}}' {NEVER_FILLED}: field '{name}' {origin}, no tool's "
                             f"output is mapped to it and it has no default{hint}")


def slot_type_problems(c: Collector, agent: AgentConfig) -> None:
    """A slot whose type cannot hold the values of the field of the same name (read with that field), or
    that keeps as text the values of a number or boolean field (_KEPT_AS_TEXT)."""
    for i, s in enumerate(agent.scenarios):
        for j, st in enumerate(s.steps):
            for k, slot in enumerate(st.slots):
                f = agent.field(slot.name)
                if f is not None and slot.type in _TEXT_SLOTS and f.field_type in _KEPT_AS_TEXT:
                    expected, example = _KEPT_AS_TEXT[f.field_type]
                    c.add(("scenarios", i, "steps", j, "slots", k, "type"),
                          f"slot type '{slot.type}' does not fit field '{f.field_name}' of type '{f.field_type}': a slot "
                          f"converts each value to its own type, and {slot.type} keeps a value given as text as it is "
                          f"({example}), so expressions, templates and tool arguments that expect {expected} get a text; "
                          f"use type: {f.field_type}")
                if f is None or f.field_type not in _NEVER_HOLDS.get(slot.type, ()):
                    continue
                if f.field_type == "enum" and slot.type in NUMERIC_TYPES and all(map(_is_number, f.allowed_values)):
                    continue  # an enum of numbers ('1', '2', '5') converts
                c.add(("scenarios", i, "steps", j, "slots", k, "type"),
                      f"slot type '{slot.type}' does not fit field '{f.field_name}' of type '{f.field_type}': the slot is "
                      f"read with the field's definition, and its {f.field_type} values cannot become {slot.type} values, "
                      f"so the slot is never filled with a usable value; use type: {f.field_type}")


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def read_names(agent: AgentConfig) -> set[str]:
    """Every name a template, an expression, a tool argument or a rule's variable lists reads."""
    out = {n for _, text in templates(agent) for n in placeholders(text)}
    out |= {n for t in agent.tools for n in read_variables(t)}
    for r in agent.rules:
        out |= set(r.required_variables) | set(r.depends_on_definitions)
    for _, expr in agent_expressions(agent):
        out |= _names(expr)
    return out


def _uncollected(agent: AgentConfig, scenario: Scenario) -> list[str]:
    """Names the scenario reads (its texts, conditions, its steps' tool arguments) that none of its slots
    collects and no tool's output fills."""
    read: set[str] = set()
    for st in scenario.steps:
        read |= placeholders(st.confirmation_prompt) | placeholders(st.response_template)
        read |= {n for t in st.transitions if t.when for n in _names(t.when)}
        read |= {n for tool_id in st.action if (tool := agent.tool(tool_id)) for n in read_variables(tool)}
    collected = {slot.name for st in scenario.steps for slot in st.slots}
    filled = {v for t in agent.tools for v in t.output.values()}
    return sorted(read - collected - filled - GUARD_BUILTINS)


def _names(expr: str) -> set[str]:
    """The names `expr` reads; none when it is invalid (semantic_problems reports that)."""
    try:
        return expressions.names(expr)
    except ExpressionError:
        return set()


def slot_warnings(c: Collector, agent: AgentConfig) -> None:
    """A slot no field declares and nothing reads: legitimate (a plain slot), but its value then reaches
    only the model; most often the slot was meant to collect a name the scenario reads."""
    fields = {f.field_name for f in agent.profile_field_definitions}
    read = read_names(agent)
    for i, s in enumerate(agent.scenarios):
        for j, st in enumerate(s.steps):
            for k, slot in enumerate(st.slots):
                field = agent.field(slot.name)
                if slot.required and field is not None and field.default is not None:
                    c.add(("scenarios", i, "steps", j, "slots", k, "name"),
                          f"slot '{slot.name}' is never asked: its field has default {field.default!r}, which counts as "
                          f"a value, so step '{st.id}' moves on without the customer's answer (and a confirmation shows "
                          f"the default as if chosen); remove the field's default, or mark the slot required: false if "
                          f"the default is meant", "warning")
                if slot.name in fields or slot.name in read:
                    continue
                hint = did_you_mean(slot.name, fields)
                if not hint and (wanted := _uncollected(agent, s)):
                    either = " or ".join(f"'{n}'" for n in wanted)
                    hint = f"; did you mean {either}, which this scenario reads but none of its slots collects?"
                c.add(("scenarios", i, "steps", j, "slots", k, "name"),
                      f"slot '{slot.name}' is not a declared field and {UNREAD} (no template, expression or "
                      f"tool argument), so its value only reaches the model{hint}", "warning")
