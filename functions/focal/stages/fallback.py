"""The error path of every stage (the state machine's Catch): a structured answer, and the turn recorded."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from focal.errors import DuplicateTurn, FocalError
from focal.models.turn import TurnError, TurnRequest, TurnState
from focal.pipeline.deps import Deps
from focal.stages.persist import turn_record

MESSAGE = "I'm sorry, something went wrong on our side. Your message was received; please try again in a moment."


def _error(caught: dict[str, Any]) -> TurnError:
    code = str(caught.get("Error") or "stage_failed")
    stage = None
    try:
        cause = json.loads(caught.get("Cause") or "{}")
        stage = cause.get("stage") if isinstance(cause, dict) else None
        code = cause.get("errorType", code) if isinstance(cause, dict) else code
    except (TypeError, ValueError):
        pass
    return TurnError(code=f"stage_failed:{code}"[:80], message="The turn could not be completed.", stage=stage)


def handle(event: dict[str, Any], deps: Deps) -> dict[str, Any]:
    caught = event.get("caught") or {}
    try:
        state = TurnState.model_validate({k: v for k, v in event.items() if k != "caught"})
    except ValidationError:
        state = TurnState(request=TurnRequest.model_validate(event["request"]))
    state.error = _error(caught)
    state.execution_path = "fallback"
    state.confidence = 0.0
    try:
        agent = deps.configs.get_agent(state.request.tenant_id, state.request.agent_id)
        state.response = agent.enforcement.fallback_message
    except (FocalError, OSError, ValueError):
        state.response = MESSAGE
    state.result = state.to_result()
    try:
        deps.turns.put(turn_record(state, deps, (state.session.turn_count + 1) if state.session else 0))
    except DuplicateTurn:
        pass
    return state.model_dump(mode="json")
