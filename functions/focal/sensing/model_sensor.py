"""The model path of the sensor: one structured call whose answer is validated into `Context`.

An answer that does not validate gets one repair try with the validation error; after that the
caller falls back to the offline sensor and the trace says why.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError

from focal.model_calls import call_model, json_schema_of
from focal.models.agent import AgentConfig, Rule
from focal.models.context import Command, ConditionReading
from focal.models.session import Session
from focal.models.turn import ModelCall
from focal.ports import LanguageModel
from focal.prompt_data import DATA_RULE, data_block, data_message

HISTORY_TURNS = 6  # the recent turns the sensor sees (a "yes" means something only after the question)


class ConditionAnswer(BaseModel):
    rule_id: str
    reading: ConditionReading = Field(description="holds, does_not_hold, or depends_on_reply when it is about the "
                                                  "agent's answer or cannot be told from the conversation")


class SensorOutput(BaseModel):
    detected_intent: str | None = Field(default=None, description="a scenario id from the list, or null")
    intent_confidence: float = Field(default=0.0, ge=0, le=1)
    extracted_entities: dict[str, Any] = Field(default_factory=dict)
    is_ambiguous: bool = False
    ambiguity_reason: str | None = None
    commands: list[Command] = Field(default_factory=list)
    conditions: list[ConditionAnswer] = Field(default_factory=list, description="one reading per entry of `conditions`")


def _prompt(agent: AgentConfig, session: Session, text: str, rules: list[Rule]) -> list[dict[str, str]]:
    step = agent.step(session.active_scenario_id, session.active_step_id)
    waiting = [s.name for s in step.slots if session.slots.get(s.name) in (None, "")] if step else []
    brief = {
        "active_flow": session.active_scenario_id,
        "active_step": session.active_step_id,
        "flow_state": session.flow_state,
        "asking_for_slots": waiting,
        "scenarios": [{"id": s.id, "label": s.intent_label, "examples": s.entry_examples[:3]} for s in agent.scenarios],
        "fields": [
            {"name": f.field_name, "type": f.field_type, "description": f.description,
             **({"allowed_values": f.allowed_values} if f.allowed_values else {}),
             **({"value_synonyms": f.value_synonyms} if f.value_synonyms else {})}
            for f in agent.profile_field_definitions
            if "message" in f.sources and not f.privileged
        ],
        "commands": list(Command.model_fields["name"].annotation.__args__),  # type: ignore[union-attr]
        **({"conditions": [{"rule_id": r.id, "condition": r.condition_text} for r in rules]} if rules else {}),
    }
    system = (
        "You read one customer message for a customer-service agent and answer only with JSON matching the schema. "
        "Pick detected_intent from the scenario ids or null; list the dialogue commands the message expresses. "
        "The earlier turns of the conversation come first; the message to read is `customer_message` in the last "
        "data block. "
        + ("For each entry of `conditions`, read whether it holds for this message and the conversation so far: "
           "holds, does_not_hold, or depends_on_reply when it is about the agent's answer or you cannot tell. "
           if rules else "")
        + DATA_RULE
    )
    history = [{"role": h.role, "content": data_block("earlier_turn", h.text)} for h in session.history[-HISTORY_TURNS:]]
    return [
        {"role": "system", "content": system},
        *history,
        data_message("turn", {"context": brief, "customer_message": text}),
    ]


def model_sensor(
    model: LanguageModel, agent: AgentConfig, session: Session, text: str, calls: list[ModelCall],
    rules: list[Rule] | None = None,
) -> tuple[SensorOutput | None, str]:
    """The validated answer (or None) and a note for the trace. `rules`: the subjective hard constraints
    whose conditions the call also reads (focal.enforcement.conditions)."""
    messages = _prompt(agent, session, text, rules or [])
    schema = json_schema_of(SensorOutput)
    for attempt in (1, 2):
        reply, call = call_model(model, "sensor", messages, calls, json_schema=schema)
        if reply is None:
            return None, f"sensor model failed ({call.note}); offline sensor used"
        try:
            output = SensorOutput.model_validate_json(reply.text)
        except ValidationError as exc:
            call.ok = False
            call.note = "invalid answer"
            if attempt == 1 and model.available("sensor"):
                messages = [*messages, {"role": "assistant", "content": reply.text},
                            {"role": "user", "content": f"That answer is invalid: {exc.errors()[:3]}. Answer again with valid JSON."}]
                continue
            return None, "sensor model answer invalid after one repair; offline sensor used"
        known = {s.id for s in agent.scenarios}
        if output.detected_intent is not None and output.detected_intent not in known:
            output.detected_intent = None
        asked = {r.id for r in rules or []}
        output.conditions = [c for c in output.conditions if c.rule_id in asked]
        return output, "model sensor" if attempt == 1 else "model sensor after one repair"
    return None, "unreachable"
