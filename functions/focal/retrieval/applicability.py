"""The optional model check of the rule filter: one batched call over the soft candidates that
passed the threshold, answering which truly apply to the message. Similarity finds candidates
cheaply; this removes the ones that only sound alike ("wrong address" vs "address after shipping").

An unusable answer keeps every candidate (the turn goes on as without a model) and says so.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field, ValidationError

from focal.dialogue.rule_filter import Applies
from focal.model_calls import call_model
from focal.models.agent import AgentConfig
from focal.models.turn import ModelCall, ScoredRule
from focal.ports import LanguageModel

PURPOSE = "rules"


class Applicability(BaseModel):
    applies: list[str] = Field(description="ids of the rules whose condition holds for this message")


def model_applies(llm: LanguageModel, agent: AgentConfig, message: str, calls: list[ModelCall], notes: list[str]) -> Applies:
    def judge(candidates: list[ScoredRule]) -> set[str] | None:
        listed = [{"id": c.rule_id, "condition": agent.rule(c.rule_id).condition_text} for c in candidates]  # type: ignore[union-attr]
        messages = [
            {"role": "system", "content": "You decide which rule conditions hold for a customer's message. "
                                          "Answer only with JSON: the ids of the rules that truly apply."},
            {"role": "user", "content": f"Rules: {json.dumps(listed)}\nCustomer message: {message}"},
        ]
        reply, call = call_model(llm, PURPOSE, messages, calls, json_schema=Applicability.model_json_schema())
        if reply is None:
            notes.append(f"rule check by model failed ({call.note}): all candidates kept")
            return None
        try:
            ids = set(Applicability.model_validate_json(reply.text).applies)
        except ValidationError:
            call.ok, call.note = False, "invalid answer"
            notes.append("rule check by model gave an invalid answer: all candidates kept")
            return None
        return ids & {c.rule_id for c in candidates}

    return judge
