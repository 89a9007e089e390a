"""What the sensor understands of one message."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

CommandName = Literal[
    "StartFlow",
    "SetSlot",
    "CorrectSlot",
    "CancelFlow",
    "Clarify",
    "AffirmConfirmation",
    "DenyConfirmation",
    "ChitChat",
    "HumanHandoff",
]


class Command(BaseModel):
    name: CommandName
    flow: str | None = None
    slot: str | None = None
    value: Any = None
    topic: str | None = None


class PreValidationCheck(BaseModel):
    name: str
    passed: bool
    reason: str = ""
    blocking: bool = Field(
        default=True, description="a failed blocking check rejects the message; a non-blocking one makes the turn ask"
    )


ConditionReading = Literal["holds", "does_not_hold", "depends_on_reply"]


class IntentScore(BaseModel):
    scenario_id: str
    label: str
    score: float


class Context(BaseModel):
    message: str
    embedding: list[float] = Field(default_factory=list)
    detected_intent: str | None = None
    intent_confidence: float = 0.0
    intent_scores: list[IntentScore] = Field(default_factory=list)
    extracted_entities: dict[str, Any] = Field(default_factory=dict)
    is_ambiguous: bool = False
    ambiguity_reason: str | None = None
    commands: list[Command] = Field(default_factory=list)
    source: Literal["offline", "model"] = "offline"
    conditions: dict[str, ConditionReading] = Field(
        default_factory=dict,
        description="the sensor model's reading of the conditions of the subjective hard constraints in scope (rule id → "
        "reading); only a model reading is kept, and only does_not_hold spares a rule the judge (focal.enforcement.conditions)",
    )
    fast_path: bool = Field(default=False, description="the offline reading was sure enough to skip the model call")
    fast_path_reason: str = ""
    notes: list[str] = Field(default_factory=list, description="why the sensor chose a path, for the trace")
    model_skipped: str = Field(default="", description="why the sensor did not ask the model, when it did not")
    set_aside: list[str] = Field(
        default_factory=list, description="what of the model's reading was not taken, and why (also in notes)")

    def courtesy_topics(self) -> set[str]:
        """What the message's small talk is (farewell, thanks, greeting, smalltalk: focal.sensing.offline)."""
        return {c.topic for c in self.commands if c.name == "ChitChat" and c.topic}
