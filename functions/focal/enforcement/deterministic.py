"""Lane 1: the hard constraints' expressions, evaluated by simpleeval over plain data. No model is involved, so
validation uses it too (focal.config.validate_rules)."""

from __future__ import annotations

from typing import Any

from focal import expressions
from focal.errors import ExpressionError
from focal.models.agent import Rule
from focal.models.turn import Violation


def deterministic(rules: list[Rule], variables: dict[str, Any]) -> list[Violation]:
    """Fail closed: an expression that errors or reads an unknown variable is a violation."""
    out = []
    for rule in rules:
        if not rule.enforcement_expression:
            continue
        try:
            unknown = sorted(expressions.names(rule.enforcement_expression) - variables.keys())
            if unknown:
                # "not fee_waived or hours_until_checkin >= 24" before the booking is looked up: decided by what is known
                holds = expressions.decide(rule.enforcement_expression, variables)
                if holds is None:
                    out.append(Violation(rule_id=rule.id, lane="deterministic",
                                         reason=f"cannot verify: {', '.join(unknown)} unknown"))
                    continue
            else:
                holds = expressions.evaluate(rule.enforcement_expression, variables)
        except ExpressionError as exc:
            out.append(Violation(rule_id=rule.id, lane="deterministic", reason=f"cannot verify: {exc}"))
            continue
        if not holds:
            shown = {n: variables.get(n, "unknown") for n in sorted(expressions.names(rule.enforcement_expression))}
            out.append(Violation(rule_id=rule.id, lane="deterministic", reason=f"{rule.enforcement_expression} is false for {shown}"))
    return out
