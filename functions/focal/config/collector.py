"""The problem collector shared by the cross-field checks (focal.config.validate and its helpers):
each problem with its path and line, expressions parsed once and checked for undeclared names, for
what would fail on every evaluation, and for enum values no variable can hold."""

from __future__ import annotations

from typing import Any, Literal

from focal import expressions
from focal.config.expr_checks import enum_problems, static_problems
from focal.config.expr_types import literal_problems
from focal.config.hints import did_you_mean, expression_hint, quoted
from focal.config.problems import Problem, format_path, line_of
from focal.errors import ExpressionError
from focal.models.agent import HANDOFF_SUMMARY, AgentConfig
from focal.variables import STEP_ATTEMPTS

# The built-in name a guard may read besides its variables: the customer said yes to the action.
GUARD_BUILTINS = frozenset({"customer_confirmed"})


def resolve_step_scope(agent: AgentConfig, scope_id: str) -> list[tuple[str, str]]:
    """A STEP scope_id is 'scenario_id.step_id' or a bare step id that exists in exactly one scenario."""
    if "." in scope_id:
        scenario_id, step_id = scope_id.split(".", 1)
        return [(scenario_id, step_id)] if agent.step(scenario_id, step_id) else []
    return [(s.id, st.id) for s in agent.scenarios for st in s.steps if st.id == scope_id]


def declared_names(agent: AgentConfig) -> set[str]:
    """Names an expression may read: field definitions, slots and tool outputs."""
    out = {f.field_name for f in agent.profile_field_definitions}
    for scenario in agent.scenarios:
        for step in scenario.steps:
            out.update(slot.name for slot in step.slots)
    for tool in agent.tools:
        out.update(tool.output.values() or ())
    if agent.handoff_tool:
        out.add(HANDOFF_SUMMARY)
    if any(st.transitions for s in agent.scenarios for st in s.steps):
        out.add(STEP_ATTEMPTS)
    return out


def variable_types(agent: AgentConfig) -> dict[str, str]:
    """Declared type of each field and slot (a slot's type where a slot and a field share a name)."""
    out: dict[str, str] = {f.field_name: f.field_type for f in agent.profile_field_definitions}
    for scenario in agent.scenarios:
        for step in scenario.steps:
            out.update({slot.name: slot.type for slot in step.slots})
    return out


def agent_expressions(agent: AgentConfig) -> list[tuple[tuple[Any, ...], str]]:
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


def allowed_values(agent: AgentConfig) -> dict[str, tuple[str, list[str]]]:
    """name → (field_type, allowed_values) of each enum and entity_list field that lists its values."""
    return {f.field_name: (f.field_type, list(f.allowed_values)) for f in agent.profile_field_definitions
            if f.field_type in ("enum", "entity_list") and f.allowed_values}


def consequence(agent: AgentConfig | None, parts: tuple[Any, ...]) -> str:
    """What an expression at `parts` that fails on every evaluation does at run time."""
    if agent is not None and parts[:1] == ("rules",) and isinstance(parts[1], int) and parts[1] < len(agent.rules):
        rule = agent.rules[parts[1]]
        if rule.is_hard_constraint and rule.guarded_tool_ids:
            return "the guard blocks every call of " + ", ".join(f"'{t}'" for t in rule.guarded_tool_ids)
        if rule.is_hard_constraint:
            return "the rule blocks every answer it applies to (it fails closed)"
        return "it never holds"
    if "transitions" in parts:
        return "this transition is never taken"
    return "every value is refused"


class Collector:
    def __init__(self, raw: Any, agent: AgentConfig | None = None):
        self.raw = raw
        self.agent = agent
        self.problems: list[Problem] = []
        self.types = variable_types(agent) if agent else {}
        self.enums = allowed_values(agent) if agent else {}
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

    def names(self, parts: tuple[Any, ...], expr: str) -> set[str] | None:
        """The names `expr` reads; None (and the problem added, quoting it, with a hint) if it is invalid."""
        try:
            return expressions.names(expr)
        except ExpressionError as exc:
            where = f" (in {quoted(expr)})" if isinstance(expr, str) and expr.strip() else ""
            self.add(parts, f"invalid expression: {exc}{where}" + expression_hint(expr))
            return None

    def expression(self, parts: tuple[Any, ...], expr: str, allowed: set[str]) -> None:
        used = self.names(parts, expr)
        if used is None:
            return
        for name in sorted(used - allowed):
            self.undeclared(parts, name, allowed)
        self.static(parts, expr)

    def static(self, parts: tuple[Any, ...], expr: str) -> None:
        """What parses but fails on every evaluation (expr_checks): errors when certain from the literals,
        warnings when they rest on a variable's declared type (`semantic_warnings` collects those: such
        a rule fails closed, so the agent still loads); and enum values no variable can hold, texts a boolean or a
        number never equals, dates that do not exist or are not written YYYY-MM-DD (expr_types; errors)."""
        tree = expressions.parse(expr)
        for message, certain in static_problems(tree, self.types):
            if certain:
                self.add(parts, f"this expression fails whenever it runs: {message}")
            elif self.typed_warnings is not None:
                self.typed_warnings.append((parts, "this expression fails whenever it runs with a value of the declared "
                                                   f"type, so {consequence(self.agent, parts)}: {message}"))
        for message in enum_problems(tree, self.enums) + literal_problems(tree, self.types):
            self.add(parts, message)
