"""Whether another draft could pass: a hard constraint no wording can satisfy makes regenerating pointless.

A deterministic rule reads two kinds of values: what the turn already knows (profile, session, tool
results) and what the draft states (fields whose `sources` include `response`). When the rule fails
for *every* probe of the draft's values — zero and both extremes for numbers, true and false for a flag,
the field left unstated — no regenerated draft can pass it: the rule's fallback text is the answer at
once, and the model is not asked again. An expression that errors whatever the draft says (a mistake
only evaluation reveals) is one such rule. A rule whose draft values cannot be probed (text, lists)
is taken as repairable, as are judge verdicts and output checks.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from focal import expressions
from focal.enforcement.variables import PROBES
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, Rule
from focal.models.turn import Violation

_UNSTATED = object()  # the draft states nothing: the field keeps what the turn knows (or its default)


def _holds(expression: str, variables: dict[str, Any]) -> bool:
    try:
        return expressions.evaluate(expression, variables) is True
    except ExpressionError:
        return False


def unrepairable(agent: AgentConfig, violations: list[Violation], variables: dict[str, Any]) -> Rule | None:
    """The first violated deterministic rule that no draft can satisfy, or None."""
    for violation in violations:
        rule = agent.rule(violation.rule_id)
        if violation.lane != "deterministic" or rule is None or not rule.enforcement_expression:
            continue
        try:
            names = sorted(expressions.names(rule.enforcement_expression))
        except ExpressionError:
            return rule  # it cannot even be parsed: no draft changes that
        probed: list[tuple[str, tuple[Any, ...]]] = []
        for name in names:
            f = agent.field(name)
            if f is None or "response" not in f.sources:
                continue
            probes = PROBES.get(f.field_type)
            if probes is None:
                break  # a value we cannot enumerate: maybe some draft passes
            default = variables[name] if name in variables else (f.default if f.default is not None else _UNSTATED)
            probed.append((name, (*probes, default)))
        else:
            if not any(_holds(rule.enforcement_expression, _with(variables, probed, combo))
                       for combo in product(*(p for _, p in probed))):
                return rule
    return None


def _with(variables: dict[str, Any], probed: list[tuple[str, tuple[Any, ...]]], combo: tuple[Any, ...]) -> dict[str, Any]:
    out = dict(variables)
    for (name, _), value in zip(probed, combo, strict=True):
        if value is _UNSTATED:
            out.pop(name, None)
        else:
            out[name] = value
    return out
