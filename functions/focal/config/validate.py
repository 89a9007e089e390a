"""Cross-field checks of an agent definition: every reference resolves, every expression parses
and reads only declared names, thresholds are coherent. Returns every problem, never stops early.

`semantic_problems` are errors (the agent does not load); `semantic_warnings` are things that load
but probably do not do what the author meant (`focal validate` prints them and still exits 0).
Tools are checked in validate_tools, placeholders and slots (where values come from) in validate_values,
expressions by the Collector (collector, expr_checks), hard constraints against what replies state (their own
texts, a reply field's default, a percentage written as a fraction) and switched off in validate_rules.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import Any

from focal.config.collector import GUARD_BUILTINS, Collector, agent_expressions, declared_names, resolve_step_scope
from focal.config.flow_warnings import flow_warnings
from focal.config.hints import did_you_mean, quoted
from focal.config.lookup_warnings import lookup_problems, lookup_warnings
from focal.config.problems import Problem
from focal.config.soft_rule_warnings import soft_rule_warnings
from focal.config.validate_guards import guard_problems
from focal.config.validate_identity import identity_warnings
from focal.config.validate_privileges import privilege_warnings
from focal.config.validate_rules import (
    default_problems,
    disabled_warnings,
    fraction_warnings,
    own_text_warnings,
    tool_only_warnings,
)
from focal.config.validate_signatures import signature_problems
from focal.config.validate_tools import tool_problems
from focal.config.validate_translations import (
    engine_text_problems,
    engine_text_warnings,
    translation_problems,
    translation_warnings,
)
from focal.config.validate_values import placeholder_problems, slot_type_problems, slot_warnings
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule, Scope
from focal.sensing.extraction import PATTERN_MAX_LENGTH

__all__ = ["GUARD_BUILTINS", "declared_names", "resolve_step_scope", "semantic_problems", "semantic_warnings"]


def _duplicates(c: Collector, items: list[Any], attr: str, path: tuple[Any, ...]) -> None:
    counts = Counter(getattr(i, attr) for i in items)
    for index, entry in enumerate(items):
        if counts[getattr(entry, attr)] > 1:
            c.add((*path, index, attr), f"duplicate {attr} '{getattr(entry, attr)}'")


def _index_ids(c: Collector, agent: AgentConfig) -> None:
    """Rule and scenario ids name index documents ('refund_cap#2' is an example of refund_cap): no '#'
    in them, or one rule's keys could replace another's."""
    ids: list[tuple[str, int, str]] = [("rules", i, r.id) for i, r in enumerate(agent.rules)]
    ids += [("scenarios", i, s.id) for i, s in enumerate(agent.scenarios)]
    for kind, index, entry_id in ids:
        if "#" in entry_id:
            c.add((kind, index, "id"), f"'{entry_id}' contains '#', which names the index's documents; use another character")


def _pattern_problem(pattern: str) -> str | None:
    """Why a field's pattern cannot be used. Compiled by `re`: the matcher's `regex` (sensing.extraction)
    takes the same syntax and is not in every stage's layers."""
    if len(pattern) > PATTERN_MAX_LENGTH:
        return f"the pattern is {len(pattern)} characters long; the limit is {PATTERN_MAX_LENGTH}"
    try:
        re.compile(pattern)
    except (re.error, OverflowError, ValueError) as exc:  # OverflowError: 'a{4294967295}'
        return f"invalid regular expression: {exc}"
    except RecursionError:
        return "invalid regular expression: groups nested too deeply"
    return None


def _label_problems(c: Collector, path: tuple[Any, ...], f: ProfileFieldDefinition) -> None:
    """value_labels name allowed values of an enum, each with words of its own (the customer hears them and may
    answer with them)."""
    if f.value_labels and f.field_type != "enum":
        c.add((*path, "value_labels"), f"value_labels are for enum fields; '{f.field_name}' is {f.field_type}")
        return
    for value, label in f.value_labels.items():
        if value not in f.allowed_values:
            c.add((*path, "value_labels", value), f"'{value}' is not one of allowed_values ({', '.join(f.allowed_values)})"
                  f"{did_you_mean(value, f.allowed_values)}")
        elif not label.strip():
            c.add((*path, "value_labels", value), "a label must say something: leave the value out to say it as written")
    said: dict[str, str] = {}
    for value in f.allowed_values:
        words = " ".join(str(f.spoken(value)).lower().split())
        if words in said:
            c.add((*path, "value_labels"), f"'{said[words]}' and '{value}' are both said as '{words}': the customer could "
                  "not tell them apart, nor answer with one of them")
        said.setdefault(words, value)


def semantic_warnings(agent: AgentConfig, raw: Any = None, *, model: str | None = None) -> list[Problem]:
    """What loads but probably misbehaves. `model` is the FOCAL_MODEL override (settings), if any."""
    c = Collector(raw, agent)
    c.typed_warnings = []
    for parts, expr in agent_expressions(agent):
        try:
            c.static(parts, expr)
        except ExpressionError:
            continue  # an error of semantic_problems
    c.problems = [p for p in c.problems if p.severity == "warning"]  # the certain ones are errors elsewhere
    for parts, message in c.typed_warnings:
        c.add(parts, message, "warning")
    slot_warnings(c, agent)
    flow_warnings(c, agent)
    lookup_warnings(c, agent)
    disabled_warnings(c, agent)
    fraction_warnings(c, agent)
    own_text_warnings(c, agent)
    tool_only_warnings(c, agent)
    privilege_warnings(c, agent)
    identity_warnings(c, agent)
    soft_rule_warnings(c, agent)
    translation_warnings(c, agent)
    engine_text_warnings(c, agent)
    if not agent.enforcement.llm_judge_enabled:
        why = "the judge is off (enforcement.llm_judge_enabled: false)"
    elif not (agent.models.model or model):
        why = "no judge model is configured (models.model or FOCAL_MODEL)"
    else:
        return c.problems
    for i, r in enumerate(agent.rules):
        if not (r.subjective and r.is_hard_constraint and r.enabled):
            continue
        setting = ("its unverifiable" if r.unverifiable else "enforcement.unverifiable_subjective")
        if (r.unverifiable or agent.enforcement.unverifiable_subjective) == "fail_closed":
            effect = f"this rule blocks every answer it applies to ({setting} is fail_closed)"
        else:
            effect = f"this rule is never checked, answers it applies to are only marked unverified ({setting} is mark_unverified)"
        c.add(("rules", i, "subjective"), f"{why}: {effect}", "warning")
    return c.problems


def _scope_problems(c: Collector, agent: AgentConfig, path: tuple[Any, ...], r: Rule) -> None:
    """The scope_id names what the scope says: nothing (GLOBAL), a scenario, or one step."""
    scope_id = r.scope_id or ""
    if r.scope != Scope.GLOBAL and not scope_id.strip():
        c.add((*path, "scope"), _missing_scope_id(agent, r.scope))
        return
    if r.scope == Scope.GLOBAL and r.scope_id:
        c.add((*path, "scope_id"), "a GLOBAL rule takes no scope_id")
    if r.scope == Scope.SCENARIO and not agent.scenario(r.scope_id):
        c.add((*path, "scope_id"), f"scenario '{scope_id}' does not exist"
              + (_step_hint(agent, scope_id) or did_you_mean(scope_id, [s.id for s in agent.scenarios])))
    if r.scope == Scope.STEP:
        found = resolve_step_scope(agent, scope_id)
        if len(found) != 1:
            why = "does not exist" if not found else "is ambiguous; write 'scenario_id.step_id'"
            steps = [st.id for s in agent.scenarios for st in s.steps] + [
                f"{s.id}.{st.id}" for s in agent.scenarios for st in s.steps]
            hint = "" if found else (
                f"; a scenario id? use scope: SCENARIO with scope_id '{scope_id}'" if agent.scenario(scope_id)
                else did_you_mean(scope_id, steps))
            c.add((*path, "scope_id"), f"step '{scope_id}' {why}{hint}")


def _missing_scope_id(agent: AgentConfig, scope: Scope) -> str:
    """A SCENARIO or STEP rule without a scope_id: what to write (the first ids of the agent as examples)."""
    if scope == Scope.SCENARIO:
        ids = [s.id for s in agent.scenarios]
        what, example = "the id of the scenario it applies to", ids[0] if ids else "a scenario id"
        known = f" (scenarios: {', '.join(ids)})" if ids else ""
    else:
        ids = [f"{s.id}.{st.id}" for s in agent.scenarios for st in s.steps]
        what, example = "'scenario_id.step_id' of the step it applies to", ids[0] if ids else "scenario_id.step_id"
        known = ""
    return (f"a {scope.value} rule needs a scope_id, {what}{known}, and this one has none, so it applies nowhere; "
            f"add scope_id: {example}, or remove scope: {scope.value} to make the rule apply everywhere (GLOBAL)")


def _validation(c: Collector, parts: tuple[Any, ...], expr: str, whose: str, own: str) -> None:
    """A slot's validation or a field's validation_rules: evaluated with `value` alone (focal/flow_reading.py
    value_valid), so any other name has no value there and every value is refused."""
    used = c.names(parts, expr)
    if used is None:
        return
    for name in sorted(used - {"value"}):
        if name == own:
            fix = f"; write {quoted(_renamed(expr, own))}"
        elif hint := did_you_mean(name, ["value"]):
            fix = hint
        else:
            fix = "; to compare with another variable, use a transition's when or a rule's enforcement_expression"
        c.add(parts, f"{whose} reads only 'value', the value being checked: '{name}' has no value there, so the "
                     f"expression cannot be evaluated and every value is refused{fix}")
    c.static(parts, expr)


def _renamed(expr: str, name: str) -> str:
    """`expr` with the variable `name` read as `value` (texts and other names untouched)."""
    tree = ast.parse(expr.strip(), mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name:
            node.id = "value"
    return ast.unparse(tree)


def _step_hint(agent: AgentConfig, scope_id: str) -> str:
    """'; a step id? use scope: STEP …' when a SCENARIO scope_id names exactly one step."""
    found = resolve_step_scope(agent, scope_id)
    if len(found) != 1:
        return ""
    scenario_id, step_id = found[0]
    if len(resolve_step_scope(agent, step_id)) == 1:
        return f"; a step id? use scope: STEP with scope_id '{step_id}' (scenario '{scenario_id}')"
    return f"; a step id? use scope: STEP with scope_id '{scenario_id}.{step_id}'"


def _subjective_problems(c: Collector, path: tuple[Any, ...], r: Rule) -> None:
    """A hard constraint both subjective and with an expression: one of the two is silently ignored
    (stages/enforce.py judges subjective rules only; enforcement/guards.py evaluates a guard's expression)."""
    if r.unverifiable and not (r.is_hard_constraint and r.subjective):
        c.add((*path, "unverifiable"), "unverifiable only applies to a subjective hard constraint (what happens when "
                                       "nobody can judge it); set subjective: true and is_hard_constraint: true, or remove it")
    if not (r.is_hard_constraint and r.subjective and r.enforcement_expression):
        return
    if r.guarded_tool_ids:
        c.add((*path, "subjective"), "subjective: true is ignored on a guard: its enforcement_expression alone decides "
                                     "before each call; remove subjective: true")
    else:
        c.add((*path, "enforcement_expression"), "this expression is never evaluated: a subjective rule is only judged "
              "by the model; remove subjective: true to check the expression, or remove the expression")


def _rule_problems(c: Collector, agent: AgentConfig, names: set[str]) -> None:
    rule_ids = {r.id for r in agent.rules}
    tool_ids = {t.id for t in agent.tools}
    field_names = {f.field_name for f in agent.profile_field_definitions}
    for i, r in enumerate(agent.rules):
        path = ("rules", i)
        _scope_problems(c, agent, path, r)
        for j, tool_id in enumerate(r.attached_tool_ids):
            if tool_id not in tool_ids:
                c.add((*path, "attached_tool_ids", j), f"tool '{tool_id}' does not exist" + did_you_mean(tool_id, tool_ids))
        for key in ("entails_rule_ids", "excludes_rule_ids"):
            for j, other in enumerate(getattr(r, key)):
                if other not in rule_ids:
                    c.add((*path, key, j), f"rule '{other}' does not exist" + did_you_mean(other, rule_ids))
        for j, name in enumerate(r.depends_on_definitions):
            if name not in field_names:
                c.add((*path, "depends_on_definitions", j), f"definition '{name}' does not exist" + did_you_mean(name, field_names))
        for j, name in enumerate(r.required_variables):
            if name not in names:
                c.add((*path, "required_variables", j), f"variable '{name}' is not a declared variable" + did_you_mean(name, names))
        if r.guarded_tool_ids:
            guard_problems(c, agent, path, r, names)
        elif r.enforcement_expression:
            c.expression((*path, "enforcement_expression"), r.enforcement_expression, names)
        if r.is_hard_constraint and not r.enforcement_expression and not r.subjective and not r.guarded_tool_ids:
            c.add(path, "a hard constraint needs an enforcement_expression or subjective: true")
        _subjective_problems(c, path, r)


def _scenario_problems(c: Collector, agent: AgentConfig, names: set[str]) -> None:
    tool_ids = {t.id for t in agent.tools}
    for i, s in enumerate(agent.scenarios):
        path = ("scenarios", i)
        step_ids = {st.id for st in s.steps}
        _duplicates(c, s.steps, "id", (*path, "steps"))
        if s.entry_step_id not in step_ids:
            c.add((*path, "entry_step_id"), f"step '{s.entry_step_id}' does not exist in scenario '{s.id}'"
                  + did_you_mean(s.entry_step_id, step_ids))
        if not s.entry_examples:
            c.add((*path, "entry_examples"), "at least one entry example is needed to detect this intent")
        for j, st in enumerate(s.steps):
            spath = (*path, "steps", j)
            _duplicates(c, st.slots, "name", (*spath, "slots"))
            for k, t in enumerate(st.transitions):
                if t.target is not None and t.target not in step_ids:
                    c.add((*spath, "transitions", k, "target"), f"step '{t.target}' does not exist in scenario '{s.id}'"
                          + did_you_mean(t.target, step_ids))
                if t.when:
                    c.expression((*spath, "transitions", k, "when"), t.when, names)
            for k, tool_id in enumerate(st.action):
                if tool_id not in tool_ids:
                    c.add((*spath, "action", k), f"tool '{tool_id}' does not exist" + did_you_mean(tool_id, tool_ids))
            for k, slot in enumerate(st.slots):
                if slot.validation:
                    _validation(c, (*spath, "slots", k, "validation"), slot.validation, "a slot's validation", slot.name)
            if st.call is not None:
                _call_problems(c, agent, s.id, (*spath, "call"), st.call)


def _call_problems(c: Collector, agent: AgentConfig, caller: str, path: tuple, called: str) -> None:
    """A step's `call` names another scenario, and no chain of calls comes back to the caller (it would never end)."""
    scenario_ids = [s.id for s in agent.scenarios]
    if called == caller:
        c.add(path, "a step cannot call its own scenario (it would never finish)")
        return
    if called not in scenario_ids:
        c.add(path, f"scenario '{called}' does not exist" + did_you_mean(called, scenario_ids))
        return
    calls = {s.id: [st.call for st in s.steps if st.call] for s in agent.scenarios}
    chain, todo = {called: [caller, called]}, [called]
    while todo:
        current = todo.pop()
        for nxt in calls.get(current, []):
            if nxt == caller:
                c.add(path, "calls come back to this scenario: " + " → ".join([*chain[current], caller]))
                return
            if nxt not in chain and nxt in calls:
                chain[nxt] = [*chain[current], nxt]
                todo.append(nxt)


def _approval_problems(c: Collector, agent: AgentConfig) -> None:
    a = agent.approval
    if a.approval_threshold > a.execute_threshold:
        c.add(("approval", "approval_threshold"), "must not exceed execute_threshold")
    factors = ("goal_understanding", "tool_availability", "context_richness", "tool_determinism")  # dialogue/confidence.py
    unknown = sorted(set(a.weights) - set(factors))
    absent = [f for f in factors if f not in a.weights]
    if unknown or absent:
        c.add(("approval", "weights"), "weights must name exactly the confidence factors " + ", ".join(factors)
              + (f"; unknown: {', '.join(unknown)}" if unknown else "") + (f"; missing: {', '.join(absent)}" if absent else ""))
    if any(w < 0 for w in a.weights.values()):
        c.add(("approval", "weights"), "weights must not be negative")
    if abs(sum(a.weights.values()) - 1.0) > 0.01:
        c.add(("approval", "weights"), f"weights must add up to 1.0 (they add up to {sum(a.weights.values()):.2f}: "
              + ", ".join(f"{k} {v:g}" for k, v in a.weights.items()) + ")")


def semantic_problems(agent: AgentConfig, raw: Any = None) -> list[Problem]:
    c = Collector(raw, agent)
    names = declared_names(agent)

    if agent.handoff_tool is not None and agent.tool(agent.handoff_tool) is None:
        c.add(("handoff_tool",), f"tool '{agent.handoff_tool}' does not exist"
              + did_you_mean(agent.handoff_tool, [t.id for t in agent.tools]))
    lookup_problems(c, agent)
    _duplicates(c, agent.rules, "id", ("rules",))
    _duplicates(c, agent.scenarios, "id", ("scenarios",))
    _index_ids(c, agent)
    _duplicates(c, agent.tools, "id", ("tools",))
    _duplicates(c, agent.profile_field_definitions, "field_name", ("profile_field_definitions",))

    for i, f in enumerate(agent.profile_field_definitions):
        path = ("profile_field_definitions", i)
        if f.pattern and (problem := _pattern_problem(f.pattern)):
            c.add((*path, "pattern"), problem)
        if f.field_type in ("enum", "entity_list") and not f.allowed_values:
            c.add((*path, "allowed_values"), f"a field of type {f.field_type} needs allowed_values")
        for value in f.value_synonyms:
            if f.field_type not in ("enum", "entity_list"):
                c.add((*path, "value_synonyms"), f"value_synonyms are for enum and entity_list fields; "
                      f"'{f.field_name}' is {f.field_type}")
                break
            if value not in f.allowed_values:
                c.add((*path, "value_synonyms", value), f"'{value}' is not one of allowed_values "
                      f"({', '.join(f.allowed_values)}): synonyms name the value they stand for{did_you_mean(value, f.allowed_values)}")
        for j, rule in enumerate(f.validation_rules):
            _validation(c, (*path, "validation_rules", j), rule, "a field's validation_rules", f.field_name)
        _label_problems(c, path, f)

    _rule_problems(c, agent, names)
    default_problems(c, agent)
    _scenario_problems(c, agent, names)
    slot_type_problems(c, agent)
    for i, tool in enumerate(agent.tools):
        tool_problems(c, agent, ("tools", i), tool, names)
        signature_problems(c, agent, ("tools", i), tool)
    placeholder_problems(c, agent, names)
    translation_problems(c, agent)
    engine_text_problems(c, agent)
    _approval_problems(c, agent)
    if agent.pre_validation.min_length > agent.pre_validation.max_length:
        c.add(("pre_validation", "min_length"), "must not exceed max_length")
    return c.problems
