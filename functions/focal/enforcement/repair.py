"""Whether any draft could pass: a hard constraint no wording can satisfy makes drafting pointless.

A deterministic rule reads two kinds of values: what the turn already knows (profile, session, tool
results) and what the draft states (fields whose `sources` include `response`). When the rule fails
for *every* probe of the draft's values — zero and both extremes for numbers, true and false for a flag,
the field left unstated — no regenerated draft can pass it: the rule's fallback text is the answer at
once: no generation call when it is in scope before the draft (`hopeless`), no judge or extraction
call on a draft it blocks, and no regeneration (`unrepairable`). An expression that errors whatever the
draft says (a mistake only evaluation reveals) is one such rule. A rule whose draft values cannot be
probed (text, lists) is taken as satisfiable, as are judge verdicts and output checks.

Which response constraints a turn checks is decided here too (`rules_to_enforce`), for the generate
stage asks the same question before drafting.
"""

from __future__ import annotations

import ast
import math
from itertools import product
from typing import Any

from focal import expressions
from focal.enforcement.assess import SUSPECTED
from focal.enforcement.guards import is_guard
from focal.enforcement.reading import PROBES
from focal.enforcement.scope import hard_constraints_in_scope, turn_scope
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, Rule
from focal.models.turn import Draft, TurnState, Violation

MAX_PROBES = 2000  # combinations of draft values tried for one rule
_UNSTATED = object()  # the draft states nothing: the field keeps what the turn knows (or its default)


def _holds(expression: str, variables: dict[str, Any]) -> bool:
    try:
        return expressions.evaluate(expression, variables) is True
    except ExpressionError:
        return False


def rules_to_enforce(agent: AgentConfig, state: TurnState) -> list[Rule]:
    """Every response constraint (a hard constraint that guards no tool) in this turn's scope, plus any
    hard constraint retrieval matched (focal.enforcement.scope)."""
    in_scope = hard_constraints_in_scope(agent, turn_scope(agent, state))
    matched = [r for m in state.route.matched_rules if (r := agent.rule(m.rule_id)) and r.is_hard_constraint and r.enabled]
    unique = {r.id: r for r in in_scope + matched}
    return [r for r in unique.values() if not is_guard(r)]


def no_draft_satisfies(agent: AgentConfig, rule: Rule, variables: dict[str, Any]) -> bool:
    """True when the rule's expression fails (false or an error) for every value a draft could state.

    A draft's value is probed as: unstated (what the turn knows, or the field's default) first, then
    zero, both extremes, every number the expression or the turn's known values contain, one either
    side of each and the midpoints between them — so `discount_offered == 15` or `10 < x < 11` is
    satisfiable. A draft value outside those probes that passes is thinkable only for expressions no
    policy writes (`x % 7 == 3`), and then the answer is the rule's fallback: stricter, never laxer."""
    if rule.subjective or not rule.enforcement_expression:
        return False
    try:
        names = sorted(expressions.names(rule.enforcement_expression))
    except ExpressionError:
        return True  # it cannot even be parsed: no draft changes that
    drafted = [(name, f) for name in names if (f := agent.field(name)) is not None and "response" in f.sources]
    if any(f.field_type not in PROBES for _, f in drafted):
        return False  # a value we cannot enumerate (text, a list): maybe some draft passes
    unstated = [(name, [variables[name] if name in variables else f.default if f.default is not None else _UNSTATED])
                for name, f in drafted]
    if _holds(rule.enforcement_expression, _with(variables, unstated, tuple(v[0] for _, v in unstated))):
        return False  # the usual case, settled at once: an answer that states nothing passes
    probed = [(name, [*values, *_probes(f.field_type, rule.enforcement_expression, variables)])
              for (name, values), (_, f) in zip(unstated, drafted, strict=True)]
    if math.prod(len(p) for _, p in probed) > MAX_PROBES:
        return False  # too many draft values to try: taken as satisfiable (the draft is judged as before)
    return not any(_holds(rule.enforcement_expression, _with(variables, probed, combo))
                   for combo in product(*(p for _, p in probed)))


def _probes(field_type: str, expression: str, variables: dict[str, Any]) -> list[Any]:
    if field_type == "boolean":
        return list(PROBES["boolean"])
    figures = {float(v) for v in variables.values() if isinstance(v, int | float) and not isinstance(v, bool)}
    figures |= {float(n.value) for n in ast.walk(ast.parse(expression, mode="eval"))
                if isinstance(n, ast.Constant) and isinstance(n.value, int | float) and not isinstance(n.value, bool)}
    points = sorted({p for x in figures for p in (x - 1, x - 0.01, x, x + 0.01, x + 1)} | {0.0})
    points += [(a + b) / 2 for a, b in zip(points, points[1:], strict=False)]
    values: list[Any] = [*PROBES[field_type], *points]
    return [round(v) for v in values] if field_type == "integer" else values


def hopeless(agent: AgentConfig, rules: list[Rule], variables: dict[str, Any]) -> Rule | None:
    """The first of `rules` no draft can satisfy, or None."""
    return next((r for r in rules if no_draft_satisfies(agent, r, variables)), None)


def unrepairable(agent: AgentConfig, violations: list[Violation], variables: dict[str, Any]) -> Rule | None:
    """The first violated deterministic rule that no draft can satisfy, or None."""
    for violation in violations:
        rule = agent.rule(violation.rule_id)
        if violation.lane == "deterministic" and rule is not None and no_draft_satisfies(agent, rule, variables):
            return rule
    return None


UNVERIFIED = "cannot verify"  # how every lane words a rule it could not evaluate (no reader, no verdict, no time)


def unverified_only(violations: list[Violation]) -> bool:
    """Whether the draft broke no rule as far as anyone could tell: each rule it was held on was one nobody could
    check, and the offline reader saw nothing that breaks it (`SUSPECTED`); the output checks, which name no rule,
    aside. Such a draft is kept out, but its rules' texts answer nothing the customer asked."""
    ruled = [v for v in violations if v.lane in ("deterministic", "judge")]
    return bool(ruled) and all(v.reason.startswith(UNVERIFIED) and SUSPECTED not in v.reason for v in ruled)


def unraised(state: TurnState, draft: Draft) -> bool:
    """Whether `draft` is a model's that nobody could check (`unverified_only`) on rules the customer's message did not
    raise (none of them matched this turn): their texts would answer only a draft the customer never saw, so the
    turn's own offline answer replaces it, checked like any draft, as with no model."""
    if draft.source != "model" or not unverified_only(draft.violations):
        return False
    matched = {m.rule_id for m in state.route.matched_rules}
    return not any(v.rule_id in matched for v in draft.violations)


def _with(variables: dict[str, Any], probed: list[tuple[str, list[Any]]], combo: tuple[Any, ...]) -> dict[str, Any]:
    out = dict(variables)
    for (name, _), value in zip(probed, combo, strict=True):
        if value is _UNSTATED:
            out.pop(name, None)
        else:
            out[name] = value
    return out
