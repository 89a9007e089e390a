"""Lane 1 (simpleeval expressions, deterministic) and lane 2 (one batched judge call for subjective rules)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from focal import expressions
from focal.errors import ExpressionError
from focal.model_calls import call_structured
from focal.models.agent import Rule
from focal.models.turn import ModelCall, Violation
from focal.ports import LanguageModel
from focal.prompt_data import DATA_RULE, data_message


def deterministic(rules: list[Rule], variables: dict[str, Any]) -> list[Violation]:
    """Fail closed: an expression that errors or reads an unknown variable is a violation."""
    out = []
    for rule in rules:
        if not rule.enforcement_expression:
            continue
        try:
            unknown = sorted(expressions.names(rule.enforcement_expression) - variables.keys())
            if unknown:
                out.append(Violation(rule_id=rule.id, lane="deterministic", reason=f"cannot verify: {', '.join(unknown)} unknown"))
                continue
            holds = expressions.evaluate(rule.enforcement_expression, variables)
        except ExpressionError as exc:
            out.append(Violation(rule_id=rule.id, lane="deterministic", reason=f"cannot verify: {exc}"))
            continue
        if not holds:
            shown = {n: variables[n] for n in sorted(expressions.names(rule.enforcement_expression))}
            out.append(Violation(rule_id=rule.id, lane="deterministic", reason=f"{rule.enforcement_expression} is false for {shown}"))
    return out


class Verdict(BaseModel):
    rule_id: str
    compliant: bool
    reason: str = ""


class Verdicts(BaseModel):
    verdicts: list[Verdict]


def judge(model: LanguageModel, rules: list[Rule], draft: str, calls: list[ModelCall]) -> list[Violation] | None:
    """One call for every subjective rule; None when the judge could not give a valid verdict."""
    prompt = {
        "answer": draft,
        "rules": [{"rule_id": r.id, "rule": f"{r.condition_text} -> {r.action_text}"} for r in rules],
    }
    messages = [
        {"role": "system", "content": "Judge whether the answer complies with each rule. Reply with JSON only. " + DATA_RULE},
        data_message("judgement", prompt),
    ]
    answer, _ = call_structured(model, "judge", messages, calls, Verdicts)
    if answer is None:
        return None
    verdicts = {v.rule_id: v for v in answer.verdicts}
    out = []
    for rule in rules:
        verdict = verdicts.get(rule.id)
        if verdict is None:
            out.append(Violation(rule_id=rule.id, lane="judge", reason="cannot verify: no verdict"))
        elif not verdict.compliant:
            out.append(Violation(rule_id=rule.id, lane="judge", reason=verdict.reason or "judged non-compliant"))
    return out
