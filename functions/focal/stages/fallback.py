"""The error path of every stage (the state machine's Catch): a structured answer, and the turn recorded."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from focal.errors import DuplicateTurn, FocalError, VersionConflict
from focal.models.session import Session
from focal.models.turn import TurnError, TurnRequest, TurnState
from focal.pipeline.definition import STAGE_NAMES, next_stage
from focal.pipeline.deps import Deps
from focal.stages.persist import turn_record

MESSAGE = "I'm sorry, something went wrong on our side. Your message was received; please try again in a moment."


def failed_stage(state: TurnState) -> str | None:
    """The stage that raised: the one after the last that finished, honouring the jump it asked for."""
    if state.last_stage is None:
        return STAGE_NAMES[0]
    return next_stage(state.last_stage, state.control.next)


def _count_turn(state: TurnState, deps: Deps) -> int:
    """Advance the stored session's turn count (and nothing else: the failed turn's changes are dropped)."""
    r = state.request
    stored = deps.sessions.get(r.tenant_id, r.agent_id, r.session_id) or Session(
        tenant_id=r.tenant_id, agent_id=r.agent_id, session_id=r.session_id, customer_id=r.customer_id
    )
    expected = stored.version
    stored.turn_count += 1
    stored.remember("user", r.message[:2000])
    stored.remember("assistant", state.response or "")
    stored.expires_at = int(deps.clock() + deps.session_ttl_s)
    try:
        deps.sessions.save(stored, expected_version=expected)
    except VersionConflict:
        pass  # another turn moved the session on; the turn record below still lands
    return stored.turn_count


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
    state.error.stage = state.error.stage or failed_stage(state)
    state.execution_path = "fallback"
    state.confidence = 0.0
    try:
        agent = deps.configs.get_agent(state.request.tenant_id, state.request.agent_id)
        state.response = agent.enforcement.fallback_message
    except (FocalError, OSError, ValueError):
        state.response = MESSAGE
    state.result = state.to_result()
    try:
        turn_number = _count_turn(state, deps)
    except FocalError:
        turn_number = 0
    try:
        deps.turns.put(turn_record(state, deps, turn_number))
    except DuplicateTurn:
        pass
    return state.model_dump(mode="json")
