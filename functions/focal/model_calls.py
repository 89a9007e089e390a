"""One model call, timed and recorded in the turn's trace (sensor, generate and judge alike)."""

from __future__ import annotations

import time
from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from focal.errors import ModelError
from focal.models.turn import ModelCall
from focal.ports import LanguageModel, ModelReply


def call_model(
    model: LanguageModel,
    purpose: str,
    messages: list[dict[str, str]],
    calls: list[ModelCall],
    json_schema: dict[str, Any] | None = None,
) -> tuple[ModelReply | None, ModelCall]:
    """The reply (None when the provider failed) and its trace entry, already appended to `calls`.

    A caller that rejects the reply's content marks the returned entry `ok=False` with a note."""
    started = time.perf_counter()
    try:
        reply = model.complete(purpose, messages, json_schema=json_schema)
    except ModelError as exc:
        call = ModelCall(purpose=purpose, model="?", ok=False, note=str(exc), ms=_ms(started))
        calls.append(call)
        return None, call
    call = ModelCall(
        purpose=purpose, model=reply.model, input_tokens=reply.input_tokens, output_tokens=reply.output_tokens,
        cost_usd=reply.cost_usd, ms=_ms(started),
    )
    calls.append(call)
    return reply, call


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


T = TypeVar("T", bound=BaseModel)


@cache
def json_schema_of(output: type[BaseModel]) -> dict[str, Any]:
    """An output model's JSON schema, built once per model class (pydantic takes milliseconds per build)."""
    return output.model_json_schema()


def call_structured(
    model: LanguageModel, purpose: str, messages: list[dict[str, str]], calls: list[ModelCall], output: type[T],
) -> tuple[T | None, ModelCall]:
    """One call whose JSON answer must validate as `output`: the parsed answer, or None when the
    provider failed or the answer did not validate (then the trace entry says "invalid answer")."""
    reply, call = call_model(model, purpose, messages, calls, json_schema=json_schema_of(output))
    if reply is None:
        return None, call
    try:
        return output.model_validate_json(reply.text), call
    except ValidationError:
        call.ok, call.note = False, "invalid answer"
        return None, call
