"""The error path of every stage (the state machine's Catch): a structured answer, and the turn recorded.

State (focal.models.turn): reads `request`, `control`, `last_stage`, `sensor.claim_owner`; sets `error`, the
answer and `result`.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from focal.dialogue.notices import reply_language, say_in_language
from focal.errors import AgentNotFound, DuplicateTurn
from focal.models.agent import AgentConfig
from focal.models.engine_texts import english
from focal.models.localized import localized
from focal.models.turn import TurnError, TurnRequest, TurnState
from focal.pii import digit_rules
from focal.stages.persist import carry_plan, count_turn, remask_earlier, turn_record
from focal.turn.definition import STAGE_NAMES, next_stage
from focal.turn.deps import Deps
from focal.turn.idempotency import complete_turn, hold_turn

# Errors a stage raises that describe the request, by exception name (the Catch's `Error`) → the turn's code.
CLIENT_ERRORS = {AgentNotFound.__name__: AgentNotFound.code}
MESSAGE = english("internal_error")


def failed_stage(state: TurnState) -> str | None:
    """The stage that raised: the one after the last that finished, honouring the jump it asked for."""
    if state.last_stage is None:
        return STAGE_NAMES[0]
    return next_stage(state.last_stage, state.control.next)


def _error(caught: dict[str, Any]) -> TurnError:
    code = str(caught.get("Error") or "stage_failed")
    stage = None
    try:
        cause = json.loads(caught.get("Cause") or "{}")
        stage = cause.get("stage") if isinstance(cause, dict) else None
        code = cause.get("errorType", code) if isinstance(cause, dict) else code
    except (TypeError, ValueError):
        pass
    if code in CLIENT_ERRORS:  # the caller's mistake, not a failure: a stable code the API maps (404)
        return TurnError(code=CLIENT_ERRORS[code], message="No such agent for this tenant.", stage=stage)
    return TurnError(code=f"stage_failed:{code}"[:80], message="The turn could not be completed.", stage=stage)


def _claim_owner(event: dict[str, Any]) -> str | None:
    """The turn id's claim token from an event the state model could not read (flat: written before the grouping)."""
    sensor = event.get("sensor")
    owner = sensor.get("claim_owner") if isinstance(sensor, dict) else event.get("claim_owner")
    return owner if isinstance(owner, str) else None


def handle(event: dict[str, Any], deps: Deps) -> dict[str, Any]:
    caught = event.get("caught") or {}
    try:
        state = TurnState.model_validate({k: v for k, v in event.items() if k != "caught"})
    except ValidationError:
        state = TurnState(request=TurnRequest.model_validate(event["request"]))
        state.sensor.claim_owner = _claim_owner(event)
    state.error = _error(caught)
    state.error.stage = state.error.stage or failed_stage(state)
    state.execution_path = "fallback"
    state.confidence = 0.0
    agent: AgentConfig | None = None
    try:
        agent = deps.configs.get_agent(state.request.tenant_id, state.request.agent_id)
        state.response = localized(agent, reply_language(state, agent)).enforcement.fallback_message
    except Exception:  # noqa: BLE001 - the fallback answers whatever the config store raised
        state.response = MESSAGE
    say_in_language(state, agent)
    state.result = state.to_result()
    try:
        held = hold_turn(state, deps.idempotency, deps.clock())
    except Exception:  # noqa: BLE001 - the claim store is down: the writes below keep their own conditions
        held = True
    if not held:
        return state.model_dump(mode="json")  # another execution took this turn over: it writes, not this one
    # The fallback must answer even when a store is down (throttling that outlasted the retries,
    # a network error): each write is attempted on its own and a failure only costs that write.
    plan = carry_plan(state, deps)
    with digit_rules(plan.rules):  # a card this message completed is masked in every write, earlier ones too
        try:
            turn_number = count_turn(state, deps, plan)
        except Exception:  # noqa: BLE001
            turn_number = 0
        try:
            if not state.sensor.foreign_session:  # another customer's session keeps no record of this caller's turn
                deps.turns.put(turn_record(state, deps, turn_number))
                remask_earlier(state, deps, plan)
        except DuplicateTurn:
            pass
        except Exception:  # noqa: BLE001
            state.error.message += " (the turn record could not be written)"
            state.result = state.to_result()
    # A repeat of this turn id answers with this fallback result and re-runs nothing (a tool with a
    # side effect may have run before the failure); see focal.turn.idempotency.
    try:
        complete_turn(state, deps.idempotency, deps.clock())
    except Exception:  # noqa: BLE001
        pass
    return state.model_dump(mode="json")
