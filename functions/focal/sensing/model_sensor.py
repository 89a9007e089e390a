"""The model path of the sensor: one structured call whose answer is checked, then validated into `SensorOutput`.

The prompt is small and its fixed part comes first (`focal.sensing.sensor_prompt`); the call asks for at
most `MAX_TOKENS` when the model takes a limit. An answer that echoes the prompt or loops to its limit is
no reading (`focal.sensing.sensor_answer`) and is never retried; an answer that does not validate gets one
repair try with a prompt no longer than the first (never the rejected answer). Whatever fails — the
provider, a timeout, an echo, a loop, invalid JSON twice — the caller keeps the offline reading and the
trace says why. What a valid answer may add to the offline reading is `focal.sensing.sensor_merge`'s call.
"""

from __future__ import annotations

import copy
import inspect
import json
from functools import cache
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from focal.errors import ModelError
from focal.model_calls import call_model, json_schema_of
from focal.models.agent import AgentConfig, Rule
from focal.models.context import Command, ConditionReading, Context
from focal.models.session import Session
from focal.models.turn import ModelCall
from focal.ports import LanguageModel, ModelReply
from focal.sensing.sensor_answer import echo_reason, loop_reason, repeated_entry
from focal.sensing.sensor_prompt import repair_prompt, sensor_prompt

MAX_TOKENS = 512  # the longest answer asked for: a reading with a dozen commands and its conditions fits


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


def bounded_schema(agent: AgentConfig, rules: list[Rule]) -> dict[str, Any]:
    """The answer's schema with its lists bounded by what this agent can be told: a command per slot of its largest
    flow and three more (a start, a cancel, a dialogue act), a condition per rule asked. Under a grammar a small
    model was seen looping on `{"name": "SetSlot", "flow": null, "slot": null, …}` to the token limit (five to
    eight minutes a call on a loaded two-core machine, then no reading); bounded, the grammar closes the list."""
    schema = copy.deepcopy(json_schema_of(SensorOutput))
    most = max((sum(len(step.slots) for step in s.steps) for s in agent.scenarios), default=0)
    schema["properties"]["commands"]["maxItems"] = most + 3
    schema["properties"]["conditions"]["maxItems"] = len(rules)
    return schema


@cache
def _takes_max_tokens(kind: type) -> bool:
    try:
        params = inspect.signature(kind.complete).parameters  # type: ignore[attr-defined]
    except (AttributeError, TypeError, ValueError):
        return False
    return "max_tokens" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


class _Limited:
    """The model, asked for at most `max_tokens` when its `complete` takes a limit (the litellm adapter does)."""

    def __init__(self, inner: LanguageModel, max_tokens: int):
        self.inner, self.max_tokens = inner, max_tokens
        self.limited = _takes_max_tokens(type(inner))

    def available(self, purpose: str) -> bool:
        return self.inner.available(purpose)

    def complete(self, purpose: str, messages: list[dict[str, str]],
                 json_schema: dict[str, Any] | None = None) -> ModelReply:
        if self.limited:
            return self.inner.complete(purpose, messages, json_schema=json_schema,  # type: ignore[call-arg]
                                       max_tokens=self.max_tokens)
        return self.inner.complete(purpose, messages, json_schema=json_schema)


def _problem(exc: ValidationError | ValueError) -> str:
    if isinstance(exc, ValidationError):
        errors = exc.errors()
        if not errors:
            return "invalid"
        return f"{'.'.join(str(p) for p in errors[0]['loc']) or 'answer'}: {errors[0]['msg']}"
    return str(exc)[:80]


def _parse(reply: ModelReply, messages: list[dict[str, str]], text: str, limit: int | None) -> tuple[SensorOutput | None, str, bool]:
    """(the answer, why it is none, whether a repair may help)."""
    for check in (lambda: echo_reason(reply.text, messages, text), lambda: loop_reason(reply.text, reply.output_tokens, limit)):
        why = check()
        if why:
            return None, why, False
    try:
        raw = json.loads(reply.text)
        if not isinstance(raw, dict):
            raise ValueError("the answer is not one JSON object")
        if why := repeated_entry(raw):
            return None, why, False
        return SensorOutput.model_validate(raw), "", True
    except (ValidationError, ValueError) as exc:
        return None, _problem(exc), True


def model_sensor(
    model: LanguageModel, agent: AgentConfig, session: Session, text: str, calls: list[ModelCall],
    rules: list[Rule] | None = None, context: Context | None = None,
) -> tuple[SensorOutput | None, str]:
    """The checked, validated answer (or None) and a note for the trace. `rules`: the subjective hard
    constraints whose conditions the call also reads (focal.enforcement.conditions); `context`: the offline
    reading, whose scores choose the scenarios the prompt shows."""
    messages = sensor_prompt(agent, session, text, rules or [], context)
    schema = bounded_schema(agent, rules or [])
    limited = _Limited(model, MAX_TOKENS)
    limit = MAX_TOKENS if limited.limited else None
    for attempt in (1, 2):
        reply, call = call_model(limited, "sensor", messages, calls, json_schema=schema)
        if reply is None:
            return None, f"sensor model failed ({call.note}); offline reading kept"
        output, why, repairable = _parse(reply, messages, text, limit)
        if output is None:
            call.ok = False
            call.note = f"invalid answer: {why}" if repairable else f"no reading: {why}"
            if not repairable:
                return None, f"sensor model answer is no reading ({why}); offline reading kept, not retried"
            if attempt == 1 and model.available("sensor"):
                messages = repair_prompt(agent, session, text, rules or [], context, why)
                continue
            return None, f"sensor model answer invalid after one repair ({why}); offline reading kept"
        known = {s.id for s in agent.scenarios}
        if output.detected_intent is not None and output.detected_intent not in known:
            output.detected_intent = None
        asked = {r.id for r in rules or []}
        output.conditions = [c for c in output.conditions if c.rule_id in asked]
        return output, "model sensor" if attempt == 1 else "model sensor after one repair"
    raise ModelError("unreachable")  # pragma: no cover - the loop returns on its second attempt
