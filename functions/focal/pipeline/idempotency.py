"""Idempotent turn submission: a repeated request returns the first answer and runs nothing twice.

Design
------
The key is the request's `[tenant_id, agent_id, session_id, turn_id]` (tenant from the authorizer
context: the API mapping puts it into the request, never the body), hashed by Powertools
idempotency and stored as `TENANT#<tenant>#TURN#<hash>` (one configured persistence layer per
tenant, so stored keys lead with the tenant like every other Focal key). The payload
(`[customer_id, message]`) is hashed too: the same turn id with a different message is refused
(`turn_id_reused`), never answered with another message's answer.

A turn runs in several Lambdas, so Powertools' decorator (one function call) does not fit; the
persistence layer's own two phases are used directly:

1. **sensor** (first thing, before anything is read or run) `begin`: `save_inprogress` with an
   in-progress expiry of `IN_PROGRESS_MS` (the EXPRESS state machine's 5-minute ceiling).
   - new key → the turn runs;
   - a COMPLETED record → its stored `TurnResult` is the answer (`state.idempotency="replayed"`);
   - an INPROGRESS record → `turn_in_progress` (a concurrent duplicate; ask again later);
   - a different payload → `turn_id_reused`.
   In the last three cases the sensor sets `state.result` and jumps to persist (the jump the
   pipeline already allows), and persist writes nothing: no stage runs twice, no record twice.
2. **persist** (after the session, profile and turn record are written) `complete`:
   `save_success` with the final `TurnResult`.
3. **fallback** (any stage failed) records the failed turn and also `complete`s with the fallback
   result. Policy: a retry of a FAILED turn id returns that same fallback answer and re-runs
   nothing — the failure may have come after a side-effecting tool ran (a payment), and the turn
   record is write-once. The client retries with a new turn id (the fallback text says "try
   again"). A turn whose Lambda died without reaching the fallback stays INPROGRESS until its
   in-progress expiry; after it a retry runs again.

Persistence layers: DynamoDB (`DynamoDBPersistenceLayer` on the stack's `IdempotencyTable`,
`pk` key, TTL on `expires_at`) in AWS; `focal.adapters.sqlite_idempotency` (the same
conditional-put semantics on the local SQLite file) locally. Records expire after
`expires_after_s` (default 24 h = the session TTL): a turn id older than that runs as new.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from focal.models.turn import TurnRequest, TurnResult, TurnState

if TYPE_CHECKING:  # Powertools' idempotency package imports boto3: only the adapters' wiring loads it
    from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer

log = logging.getLogger("focal.idempotency")

IN_PROGRESS_MS = 5 * 60 * 1000  # an EXPRESS execution cannot run longer than 5 minutes
KEY_FIELDS = ("tenant_id", "agent_id", "session_id", "turn_id")
PAYLOAD_FIELDS = ("customer_id", "message")

Outcome = Literal["new", "replayed", "in_progress", "key_reused"]

ANSWERS: dict[str, tuple[str, str]] = {  # outcome → (error code, customer-facing text)
    "in_progress": ("turn_in_progress", "This message is still being answered; please wait a moment for the answer."),
    "key_reused": ("turn_id_reused", "This turn id was already used for a different message; please send it with a new turn id."),
}


class TurnIdempotency:
    """Begin / complete one turn id against a Powertools persistence layer (one per tenant)."""

    def __init__(self, layer_factory: Callable[[], BasePersistenceLayer], expires_after_s: int = 24 * 3600,
                 in_progress_ms: int = IN_PROGRESS_MS) -> None:
        self._factory = layer_factory
        self._layers: dict[str, BasePersistenceLayer] = {}
        self._lock = threading.Lock()
        self.in_progress_ms = in_progress_ms
        from aws_lambda_powertools.utilities.idempotency.config import IdempotencyConfig

        self.config = IdempotencyConfig(
            event_key_jmespath="[" + ", ".join(KEY_FIELDS) + "]",
            payload_validation_jmespath="[" + ", ".join(PAYLOAD_FIELDS) + "]",
            raise_on_no_idempotency_key=True,
            expires_after_seconds=expires_after_s,
        )

    def layer(self, tenant_id: str) -> BasePersistenceLayer:
        with self._lock:
            layer = self._layers.get(tenant_id)
            if layer is None:
                layer = self._factory()
                layer.configure(self.config, key_prefix=f"TENANT#{tenant_id}#TURN")
                self._layers[tenant_id] = layer
            return layer

    @staticmethod
    def _data(request: TurnRequest) -> dict[str, str]:
        return {name: getattr(request, name) for name in KEY_FIELDS + PAYLOAD_FIELDS}

    def begin(self, request: TurnRequest) -> tuple[Outcome, TurnResult | None]:
        from aws_lambda_powertools.utilities.idempotency.exceptions import (
            IdempotencyItemAlreadyExistsError,
            IdempotencyItemNotFoundError,
            IdempotencyValidationError,
        )

        layer, data = self.layer(request.tenant_id), self._data(request)
        try:
            layer.save_inprogress(data, remaining_time_in_millis=self.in_progress_ms)
            return "new", None
        except IdempotencyValidationError:
            return "key_reused", None
        except IdempotencyItemAlreadyExistsError:
            pass
        try:
            record = layer.get_record(data)
        except IdempotencyValidationError:
            return "key_reused", None
        except IdempotencyItemNotFoundError:
            return "in_progress", None  # removed between the two calls: the other request is finishing
        stored = record.response_json_as_dict() if record is not None else None
        if record is not None and record.status == "COMPLETED" and stored:
            return "replayed", TurnResult.model_validate(stored)
        return "in_progress", None

    def complete(self, request: TurnRequest, result: TurnResult) -> None:
        self.layer(request.tenant_id).save_success(self._data(request), result.model_dump(mode="json"))


def begin_turn(state: TurnState, idempotency: TurnIdempotency | None) -> bool:
    """The sensor's first step. True when this execution must not run the turn (answer already set)."""
    if idempotency is None:
        return False
    outcome, result = idempotency.begin(state.request)
    if outcome == "new":
        return False
    state.idempotency = outcome
    if outcome == "replayed":
        state.result = result
        state.control.next = "persist"
    else:
        state.refuse_early(*ANSWERS[outcome])
    return True


def complete_turn(state: TurnState, idempotency: TurnIdempotency | None) -> None:
    """Store the turn's final result as the answer to any repeat. Never fails the turn: the turn is
    already recorded; if this write is lost, the in-progress record expires and a repeat is refused
    by the write-once turn record instead."""
    if idempotency is None or state.idempotency is not None or state.result is None:
        return
    try:
        idempotency.complete(state.request, state.result)
    except Exception as exc:  # noqa: BLE001 - a store error must not turn a recorded answer into a failure
        log.warning("idempotency record not completed", extra={"error": type(exc).__name__})
