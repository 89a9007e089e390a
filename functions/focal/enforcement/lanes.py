"""Lane 2: one batched judge call for subjective rules (lane 1, the expressions, is focal.enforcement.deterministic)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from focal.enforcement.variables import PURPOSE, Extracted
from focal.model_calls import call_structured
from focal.models.agent import Rule
from focal.models.turn import ModelCall, Violation
from focal.ports import LanguageModel
from focal.prompt_data import DATA_RULE, data_message


class Verdict(BaseModel):
    rule_id: str
    compliant: bool
    reason: str = ""


class Verdicts(BaseModel):
    verdicts: list[Verdict]


class VerdictsAndValues(BaseModel):
    verdicts: list[Verdict]
    values: dict[str, Any] = Field(default_factory=dict, description="field name → value stated in the answer, or null")


_JUDGE = "Judge whether the answer complies with each rule; give a verdict for every rule_id."
_READ = (" Also report, for each field, the value the answer states, promises or implies; null when it does not"
         " (under \"values\", by field name).")
_VERIFY = ("Read an answer a support agent is about to send, in reply to the customer's message, and report for each "
           "field the value the answer states, promises or implies (in any language, in words or figures, a \"yes\" to "
           "the customer's demand included); null when it does not. JSON only. ")


def _rules_listed(rules: list[Rule]) -> list[dict[str, str]]:
    return [{"rule_id": r.id, "rule": f"{r.condition_text} -> {r.action_text}"} for r in rules]


def _violations(rules: list[Rule], answered: list[Verdict]) -> list[Violation]:
    verdicts = {v.rule_id: v for v in answered}
    out = []
    for rule in rules:
        verdict = verdicts.get(rule.id)
        if verdict is None:
            out.append(Violation(rule_id=rule.id, lane="judge", reason="cannot verify: no verdict"))
        elif not verdict.compliant:
            out.append(Violation(rule_id=rule.id, lane="judge", reason=verdict.reason or "judged non-compliant"))
    return out


def _material(draft: str, message: str, **more: Any) -> dict[str, Any]:
    return {**({"customer_message": message} if message else {}), "answer": draft, **more}


def judge(model: LanguageModel, rules: list[Rule], draft: str, calls: list[ModelCall], message: str = "") -> list[Violation] | None:
    """One call for every subjective rule; None when the judge could not give a valid verdict. A rule the answer
    gives no verdict for is violated ("cannot verify: no verdict"), never passed."""
    messages = [
        {"role": "system", "content": _JUDGE + " Reply with JSON only. " + DATA_RULE},
        data_message("judgement", _material(draft, message, rules=_rules_listed(rules))),
    ]
    answer, _ = call_structured(model, "judge", messages, calls, Verdicts)
    return None if answer is None else _violations(rules, answer.verdicts)


def judge_and_read(
    model: LanguageModel, rules: list[Rule], fields: list[dict[str, Any]], draft: str, calls: list[ModelCall],
    message: str = "",
) -> tuple[list[Violation] | None, dict[str, Any] | None]:
    """The judge call and the draft-reading call of focal.enforcement.variables as ONE call (purpose
    `judge`): (violations, field → value read). Both None when the call failed or its answer did not
    validate, so the caller fails closed on each exactly as when its own call fails."""
    messages = [
        {"role": "system", "content": _JUDGE + _READ + " Reply with JSON only. " + DATA_RULE},
        data_message("judgement", _material(draft, message, rules=_rules_listed(rules), fields=fields)),
    ]
    answer, _ = call_structured(model, "judge", messages, calls, VerdictsAndValues)
    if answer is None:
        return None, None
    return _violations(rules, answer.verdicts), answer.values


def verify_values(model: LanguageModel, fields: list[dict[str, Any]], draft: str, calls: list[ModelCall],
                  message: str = "") -> dict[str, Any] | None:
    """The verification call alone (no subjective rule to judge): field → value; None when it failed."""
    messages = [
        {"role": "system", "content": _VERIFY + DATA_RULE},
        data_message("verification", _material(draft, message, fields=fields)),
    ]
    answer, _ = call_structured(model, PURPOSE, messages, calls, Extracted)
    return None if answer is None else answer.values
