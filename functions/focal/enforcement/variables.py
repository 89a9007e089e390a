"""The variables an enforcement expression reads: what the turn knows, overridden by what the draft says.

Only the names the expressions use are extracted, and only for fields whose `sources` include
`response` (a refund amount the answer promises, competitors it names, a card number it echoes).
"""

from __future__ import annotations

from typing import Any

from focal import expressions
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, Rule
from focal.sensing.extraction import coerce, extract


def expression_names(rules: list[Rule]) -> set[str]:
    out: set[str] = set()
    for rule in rules:
        if rule.enforcement_expression:
            try:
                out |= expressions.names(rule.enforcement_expression)
            except ExpressionError:
                continue  # reported as a violation when evaluated
    return out


def draft_variables(agent: AgentConfig, draft: str, names: set[str]) -> dict[str, Any]:
    out = {}
    for name in sorted(names):
        field = agent.field(name)
        if field is None or "response" not in field.sources:
            continue
        value = extract(field, draft)
        if value is not None:
            out[name] = coerce(field.field_type, value)
    return out
