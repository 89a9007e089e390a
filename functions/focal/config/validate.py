"""Cross-field checks of an agent definition: every reference resolves, every expression parses
and reads only declared names, thresholds are coherent. Returns every problem, never stops early.

`semantic_problems` are errors (the agent does not load); `semantic_warnings` are things that load
but probably do not do what the author meant (`focal validate` prints them and still exits 0).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from focal import expressions, tool_templates
from focal.adapters.python_tools import entrypoint_problem, parse_tool_file
from focal.config.expr_checks import static_problems
from focal.config.hints import did_you_mean
from focal.config.problems import Problem, format_path, line_of
from focal.dialogue.variables import placeholders
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, Rule, Scope, Tool, ToolKind
from focal.sensing.extraction import PATTERN_MAX_LENGTH
from focal.settings import get_settings

# The built-in name a guard may read besides its variables: the customer said yes to the action.
GUARD_BUILTINS = frozenset({"customer_confirmed"})


def declared_names(agent: AgentConfig) -> set[str]:
    """Names an expression may read: field definitions, slots and tool outputs."""
    out = {f.field_name for f in agent.profile_field_definitions}
    for scenario in agent.scenarios:
        for step in scenario.steps:
            out.update(slot.name for slot in step.slots)
    for tool in agent.tools:
        out.update(tool.output.values() or ())
    return out


def resolve_step_scope(agent: AgentConfig, scope_id: str) -> list[tuple[str, str]]:
    """A STEP scope_id is 'scenario_id.step_id' or a bare step id that exists in exactly one scenario."""
    if "." in scope_id:
        scenario_id, step_id = scope_id.split(".", 1)
        return [(scenario_id, step_id)] if agent.step(scenario_id, step_id) else []
    return [(s.id, st.id) for s in agent.scenarios for st in s.steps if st.id == scope_id]


def variable_types(agent: AgentConfig) -> dict[str, str]:
    """Declared type of each field and slot (a slot's type where a slot and a field share a name)."""
    out: dict[str, str] = {f.field_name: f.field_type for f in agent.profile_field_definitions}
    for scenario in agent.scenarios:
        for step in scenario.steps:
            out.update({slot.name: slot.type for slot in step.slots})
    return out


class _Collector:
    def __init__(self, raw: Any, agent: AgentConfig | None = None):
        self.raw = raw
        self.problems: list[Problem] = []
        self.types = variable_types(agent) if agent else {}
        # enum values: a bare `gold` in an expression is most likely the text 'gold'
        self.literals = {v for f in agent.profile_field_definitions for v in f.allowed_values} if agent else set()
        self.typed_warnings: list[tuple[tuple[Any, ...], str]] | None = None  # set by semantic_warnings

    def add(self, parts: tuple[Any, ...], message: str, severity: Literal["error", "warning"] = "error") -> None:
        line = line_of(self.raw, parts) if self.raw else None
        self.problems.append(Problem(format_path(parts), message, line, severity))

    def undeclared(self, parts: tuple[Any, ...], name: str, allowed: set[str]) -> None:
        hint = (f"; to compare with the text, quote it: '{name}'" if name in self.literals
                else did_you_mean(name, allowed))
        self.add(parts, f"name '{name}' is not a declared variable{hint}")

    def expression(self, parts: tuple[Any, ...], expr: str, allowed: set[str]) -> None:
        try:
            used = expressions.names(expr)
        except ExpressionError as exc:
            self.add(parts, f"invalid expression: {exc}")
            return
        for name in sorted(used - allowed):
            self.undeclared(parts, name, allowed)
        self.static(parts, expr)

    def static(self, parts: tuple[Any, ...], expr: str) -> None:
        """What parses but fails on every evaluation (expr_checks): errors when certain from the literals,
        warnings when they rest on a variable's declared type (`semantic_warnings` collects those)."""
        for message, certain in static_problems(expressions.parse(expr), self.types):
            if certain:
                self.add(parts, f"this expression fails whenever it runs: {message}")
            elif self.typed_warnings is not None:
                self.typed_warnings.append((parts, f"this expression fails whenever it runs with a value of the declared "
                                                   f"type (the rule then fails closed): {message}"))


def _duplicates(c: _Collector, items: list[Any], attr: str, path: tuple[Any, ...]) -> None:
    counts = Counter(getattr(i, attr) for i in items)
    for index, entry in enumerate(items):
        if counts[getattr(entry, attr)] > 1:
            c.add((*path, index, attr), f"duplicate {attr} '{getattr(entry, attr)}'")


def _templates(agent: AgentConfig) -> list[tuple[tuple[Any, ...], str]]:
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


_LAMBDA_FUNCTION = re.compile(
    r"^(arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:\d{12}:function:)?[A-Za-z0-9_-]{1,140}(:(\$LATEST|[A-Za-z0-9_-]+))?$"
)


def _tool_problems(c: _Collector, agent: AgentConfig, path: tuple[Any, ...], t: Tool, names: set[str]) -> None:
    """Kind-specific checks of one tool (the model already ensured each kind has its own fields)."""
    for name in t.input:
        if name not in names:
            c.add((*path, "input", name), f"argument '{name}' is not a declared variable, so it can never be filled"
                  + did_you_mean(name, names))
    if t.kind == ToolKind.python and t.entrypoint:
        # The rules live with the runner, which checks them again before loading anything.
        problem = entrypoint_problem(t.entrypoint, agent.base_dir, get_settings().tool_modules)
        if problem:
            target, _, func = t.entrypoint.partition(":")
            c.add((*path, "entrypoint"), problem + did_you_mean(func, _functions_in(agent.base_dir, target)))
    if t.kind == ToolKind.http and t.url:
        if not re.match(r"^https?://[^/{}?#]+", t.url):
            c.add((*path, "url"), "expected an absolute http:// or https:// URL with a fixed host (no placeholder in the host)")
        if tool_templates.SECRET_LIKE.search(t.url):
            c.add((*path, "url"), "secrets are only allowed in headers, write '${secret:NAME}' in a header value")
        for name in dict.fromkeys(tool_templates.placeholders(t.url)):
            if name not in t.input:
                c.add((*path, "url"), f"placeholder '{{{name}}}' is not an input of this tool")
            elif not t.input[name].required:
                c.add((*path, "url"), f"placeholder '{{{name}}}' names an optional input; url placeholders must be required")
        if t.body is not None:
            for where, name in tool_templates.body_placeholders(t.body):
                if name not in t.input:
                    c.add((*path, "body", *where), f"placeholder '{{{name}}}' is not an input of this tool")
        for header, value in t.headers.items():
            for bad in tool_templates.bad_secret_references(value):
                c.add((*path, "headers", header), f"invalid secret reference '{bad}'; write '${{secret:NAME}}' (letters, digits, _ . / -)")
            if tool_templates.placeholders(value):
                c.add((*path, "headers", header), "header values take constants and '${secret:NAME}' only, not '{argument}'")
    if t.kind == ToolKind.lambda_ and t.function and not _LAMBDA_FUNCTION.match(t.function):
        c.add((*path, "function"), "expected a function name, 'name:alias' or a function ARN")
    if t.retries and not t.may_retry:
        c.add((*path, "retries"), "a side_effect tool is never retried unless it is declared idempotent: true")


def _functions_in(base_dir: str | None, target: str) -> list[str]:
    """Public functions a tool file inside the agent's folder defines (for a did-you-mean); [] if unreadable."""
    if not base_dir or not target.endswith(".py"):
        return []
    folder = Path(base_dir).resolve()
    path = (folder / target).resolve()
    if folder not in path.parents:
        return []
    try:
        tree = parse_tool_file(path, target)
    except ValueError:  # entrypoint_problem has said why
        return []
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]


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


def _inputs(t: Tool) -> str:
    return ", ".join(t.input) or "none"


def _guard_problems(c: _Collector, agent: AgentConfig, path: tuple[Any, ...], r: Rule, names: set[str]) -> None:
    """An action guard: a hard constraint with an expression, before side-effecting tools that exist,
    reading only declared names, `customer_confirmed` and arguments that every tool it guards takes."""
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
        if not tool.side_effect:
            c.add((*path, "guarded_tool_ids", j),
                  f"tool '{tool_id}' has side_effect: false; guards run before side-effecting tools only")
        guarded.append(tool)
    if not r.enforcement_expression:
        return
    parts = (*path, "enforcement_expression")
    try:
        used = expressions.names(r.enforcement_expression)
    except ExpressionError as exc:
        c.add(parts, f"invalid expression: {exc}")
        return
    c.static(parts, r.enforcement_expression)
    for name in sorted(used - names - GUARD_BUILTINS):
        lacking = [t for t in guarded if name not in t.input]
        if not guarded:
            c.undeclared(parts, name, names)
        elif len(lacking) == 1:
            t = lacking[0]
            c.add(parts, f"guard reads '{name}', which tool '{t.id}' does not take (its inputs: {_inputs(t)}) "
                         "and no field declares")
        elif lacking:
            which = " and ".join(f"'{t.id}' (inputs: {_inputs(t)})" for t in lacking)
            c.add(parts, f"guard reads '{name}', which tools {which} do not take and no field declares")


def _expressions(agent: AgentConfig) -> list[tuple[tuple[Any, ...], str]]:
    """Every expression of the agent with its path."""
    out: list[tuple[tuple[Any, ...], str]] = []
    for i, f in enumerate(agent.profile_field_definitions):
        out += [(("profile_field_definitions", i, "validation_rules", j), e) for j, e in enumerate(f.validation_rules)]
    out += [(("rules", i, "enforcement_expression"), r.enforcement_expression)
            for i, r in enumerate(agent.rules) if r.enforcement_expression]
    for i, sc in enumerate(agent.scenarios):
        for j, st in enumerate(sc.steps):
            out += [(("scenarios", i, "steps", j, "transitions", k, "when"), t.when) for k, t in enumerate(st.transitions) if t.when]
            out += [(("scenarios", i, "steps", j, "slots", k, "validation"), sl.validation)
                    for k, sl in enumerate(st.slots) if sl.validation]
    return out


def semantic_warnings(agent: AgentConfig, raw: Any = None, *, model: str | None = None) -> list[Problem]:
    """What loads but probably misbehaves. `model` is the FOCAL_MODEL override (settings), if any."""
    c = _Collector(raw, agent)
    c.typed_warnings = []
    for parts, expr in _expressions(agent):
        try:
            c.static(parts, expr)
        except ExpressionError:
            continue  # an error of semantic_problems
    c.problems = [p for p in c.problems if p.severity == "warning"]  # the certain ones are errors elsewhere
    for parts, message in c.typed_warnings:
        c.add(parts, message, "warning")
    if not agent.enforcement.llm_judge_enabled:
        why = "the judge is off (enforcement.llm_judge_enabled: false)"
    elif not (agent.models.model or model):
        why = "no judge model is configured (models.model or FOCAL_MODEL)"
    else:
        return c.problems
    if agent.enforcement.unverifiable_subjective == "fail_closed":
        effect = "this rule blocks every answer it applies to (enforcement.unverifiable_subjective is fail_closed)"
    else:
        effect = ("this rule is never checked, answers it applies to are only marked unverified "
                  "(enforcement.unverifiable_subjective is mark_unverified)")
    for i, r in enumerate(agent.rules):
        if r.subjective and r.is_hard_constraint and r.enabled:
            c.add(("rules", i, "subjective"), f"{why}: {effect}", "warning")
    return c.problems


def semantic_problems(agent: AgentConfig, raw: Any = None) -> list[Problem]:
    c = _Collector(raw, agent)
    names = declared_names(agent)
    rule_ids = {r.id for r in agent.rules}
    tool_ids = {t.id for t in agent.tools}
    field_names = {f.field_name for f in agent.profile_field_definitions}

    _duplicates(c, agent.rules, "id", ("rules",))
    _duplicates(c, agent.scenarios, "id", ("scenarios",))
    _duplicates(c, agent.tools, "id", ("tools",))
    _duplicates(c, agent.profile_field_definitions, "field_name", ("profile_field_definitions",))

    for i, f in enumerate(agent.profile_field_definitions):
        path = ("profile_field_definitions", i)
        if f.pattern and (problem := _pattern_problem(f.pattern)):
            c.add((*path, "pattern"), problem)
        if f.field_type in ("enum", "entity_list") and not f.allowed_values:
            c.add((*path, "allowed_values"), f"a field of type {f.field_type} needs allowed_values")
        for j, rule in enumerate(f.validation_rules):
            c.expression((*path, "validation_rules", j), rule, names | {"value"})

    for i, r in enumerate(agent.rules):
        path = ("rules", i)
        if r.scope == Scope.GLOBAL and r.scope_id:
            c.add((*path, "scope_id"), "a GLOBAL rule takes no scope_id")
        if r.scope == Scope.SCENARIO and not agent.scenario(r.scope_id):
            c.add((*path, "scope_id"), f"scenario '{r.scope_id}' does not exist"
                  + did_you_mean(r.scope_id or "", [s.id for s in agent.scenarios]))
        if r.scope == Scope.STEP:
            found = resolve_step_scope(agent, r.scope_id or "")
            if len(found) != 1:
                why = "does not exist" if not found else "is ambiguous; write 'scenario_id.step_id'"
                steps = [st.id for s in agent.scenarios for st in s.steps] + [
                    f"{s.id}.{st.id}" for s in agent.scenarios for st in s.steps]
                c.add((*path, "scope_id"), f"step '{r.scope_id}' {why}" + (did_you_mean(r.scope_id or "", steps) if not found else ""))
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
            _guard_problems(c, agent, path, r, names)
        elif r.enforcement_expression:
            c.expression((*path, "enforcement_expression"), r.enforcement_expression, names)
        if r.is_hard_constraint and not r.enforcement_expression and not r.subjective and not r.guarded_tool_ids:
            c.add(path, "a hard constraint needs an enforcement_expression or subjective: true")

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
                if t.target not in step_ids:
                    c.add((*spath, "transitions", k, "target"), f"step '{t.target}' does not exist in scenario '{s.id}'"
                          + did_you_mean(t.target, step_ids))
                if t.when:
                    c.expression((*spath, "transitions", k, "when"), t.when, names)
            for k, tool_id in enumerate(st.action):
                if tool_id not in tool_ids:
                    c.add((*spath, "action", k), f"tool '{tool_id}' does not exist" + did_you_mean(tool_id, tool_ids))
            for k, slot in enumerate(st.slots):
                if slot.validation:
                    c.expression((*spath, "slots", k, "validation"), slot.validation, names | {"value"})

    for i, tool in enumerate(agent.tools):
        _tool_problems(c, agent, ("tools", i), tool, names)

    for parts, template in _templates(agent):
        for name in sorted(placeholders(template) - names):
            c.add(parts, f"placeholder '{{{name}}}' is not a declared variable" + did_you_mean(name, names))

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
    if agent.pre_validation.min_length > agent.pre_validation.max_length:
        c.add(("pre_validation", "min_length"), "must not exceed max_length")
    return c.problems
