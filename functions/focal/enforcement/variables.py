"""The variables an enforcement expression reads: what the turn knows, overridden by what the draft says.

Only the names the expressions use are extracted (read from each expression's syntax tree), and
only for fields whose `sources` include `response` (a refund amount the answer promises, competitors
it names, a card number it echoes). Typed patterns go first; when a model is configured, one
structured call reads the names the patterns could not (a "full refund" without a number). What
neither finds keeps the field's default, or stays unknown — and an unknown name fails closed.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from focal import expressions
from focal.errors import ExpressionError
from focal.model_calls import call_structured
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule
from focal.models.turn import ModelCall
from focal.ports import LanguageModel
from focal.sensing.extraction import coerce, extract

PURPOSE = "extract"


def expression_names(rules: list[Rule]) -> set[str]:
    out: set[str] = set()
    for rule in rules:
        if rule.enforcement_expression:
            try:
                out |= expressions.names(rule.enforcement_expression)
            except ExpressionError:
                continue  # reported as a violation when evaluated
    return out


class Extracted(BaseModel):
    values: dict[str, Any] = Field(default_factory=dict, description="field name → value stated in the answer, or null")


def _model_values(
    model: LanguageModel, fields: list[ProfileFieldDefinition], draft: str, calls: list[ModelCall]
) -> dict[str, Any]:
    listed = [{"name": f.field_name, "type": f.field_type, "description": f.description,
               **({"allowed_values": f.allowed_values} if f.allowed_values else {})} for f in fields]
    messages = [
        {"role": "system", "content": "Read an answer a support agent is about to send and report, for each field, "
                                      "the value the answer states or implies; null when it does not. JSON only."},
        {"role": "user", "content": f"Fields: {listed}\nAnswer: {draft}"},
    ]
    answer, _ = call_structured(model, PURPOSE, messages, calls, Extracted)
    if answer is None:
        return {}
    values = answer.values
    out = {}
    for f in fields:
        value = coerce(f.field_type, values.get(f.field_name))
        if value not in (None, "", []):
            out[f.field_name] = value
    return out


def _worth_asking(field: ProfileFieldDefinition, draft: str) -> bool:
    """A model call only where it can change the verdict: the draft talks about the field (one of its
    hints appears) without a value the patterns can read, or the field has no default to fall back on."""
    lowered = draft.lower()
    return field.default is None or any(h.lower() in lowered for h in field.extraction_hints)


def draft_variables(
    agent: AgentConfig, draft: str, names: set[str], model: LanguageModel | None = None,
    calls: list[ModelCall] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    missing: list[ProfileFieldDefinition] = []
    for name in sorted(names):
        field = agent.field(name)
        if field is None or "response" not in field.sources:
            continue
        value = extract(field, draft)
        if value is not None:
            out[name] = coerce(field.field_type, value)
        elif _worth_asking(field, draft):
            missing.append(field)
    if missing and model is not None and model.available(PURPOSE):
        out.update(_model_values(model, missing, draft, calls if calls is not None else []))
    return out
