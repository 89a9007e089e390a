"""The optional model check of the rule filter: one batched call over the soft candidates that
passed the threshold, answering which truly apply to the message. Similarity finds candidates
cheaply; this removes the ones that only sound alike ("wrong address" vs "address after moving").

An unusable answer keeps every candidate (the turn goes on as without a model) and says so.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from focal.dialogue.rule_filter import Applies
from focal.model_calls import call_structured
from focal.models.agent import AgentConfig
from focal.models.turn import ModelCall, ScoredRule
from focal.ports import LanguageModel
from focal.prompt_data import DATA_RULE, data_message

PURPOSE = "rules"


class Applicability(BaseModel):
    applies: list[str] = Field(description="ids of the rules whose condition holds for this message")


def model_applies(llm: LanguageModel, agent: AgentConfig, message: str, calls: list[ModelCall], notes: list[str]) -> Applies:
    def judge(candidates: list[ScoredRule]) -> set[str] | None:
        listed = [{"id": c.rule_id, "condition": agent.rule(c.rule_id).condition_text} for c in candidates]  # type: ignore[union-attr]
        messages = [
            {"role": "system", "content": "You decide which rule conditions hold for a customer's message. "
                                          "Answer only with JSON: the ids of the rules that truly apply. " + DATA_RULE},
            data_message("rule_check", {"rules": listed, "customer_message": message}),
        ]
        answer, call = call_structured(llm, PURPOSE, messages, calls, Applicability)
        if answer is None:
            why = "gave an invalid answer" if call.note == "invalid answer" else f"failed ({call.note})"
            notes.append(f"rule check by model {why}: all candidates kept")
            return None
        return set(answer.applies) & {c.rule_id for c in candidates}

    return judge
