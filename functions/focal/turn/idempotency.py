"""Idempotent turn submission: a repeated request returns the first answer and runs nothing twice.

Design
------
The key is a hash of the request's `[tenant_id, agent_id, session_id, turn_id]` (tenant from the
authorizer context: the API mapping puts it into the request, never the body), stored under the
tenant (`focal.ports.TurnClaimStore`: SQLite locally, the IdempotencyTable in AWS). The payload
(`[customer_id, message]`) is hashed too: the same turn id with a different message is refused
(`turn_id_reused`), never answered with another message's answer.

A claim has an **owner** (a random token of the execution that runs the turn, carried in
`TurnState.claim_owner` from stage to stage) and a **lease**: `turn_budget_s(agent)` (the turn's
time budget: `models.turn_budget_s`, or FOCAL_TURN_BUDGET_S) plus `CLAIM_GRACE_S` for the work the
budget does not bound (tools, persist), from the moment the turn starts.

1. **sensor** (after reading the agent, before anything else is read or run) `begin`:
   - a free key → this execution claims it and runs the turn;
   - an in-progress claim whose lease has ended (its process died: a `kill -9`, a Lambda that never
     reached the fallback) → taken over: this execution becomes the owner and runs the turn;
   - a COMPLETED record → its stored `TurnResult` is the answer (`state.sensor.idempotency="replayed"`);
   - an in-progress claim within its lease → `turn_in_progress` with `retry_after_s` (the lease's
     remaining seconds; `focal serve` sends it as Retry-After);
   - a different payload → `turn_id_reused`.
   In the last three cases the sensor sets `state.result` and jumps to persist, which writes nothing.
2. **persist** (and the fallback) first `hold`s the claim: a conditional write that moves the lease
   to now + `CLAIM_GRACE_S` if this execution still owns it. An execution whose claim was taken
   over (it outlived its lease) writes nothing and answers `turn_in_progress`: the turn belongs to
   the new owner, whose answer a retry gets. Then the session, profile and turn record are written,
   and last `complete` stores the final `TurnResult` — compare-and-set on the owner token, so only
   the owner's answer is ever stored. Locally hold, writes and complete are one SQLite transaction.
3. **fallback** (any stage failed) records the failed turn and completes with the fallback result.
   Policy: a retry of a FAILED turn id returns that same fallback answer and re-runs nothing — the
   failure may have come after a side-effecting tool ran (a payment). The client retries with a new
   turn id (the fallback text says "try again").

A re-run after a takeover does not repeat side effects the dead execution may have started: its
claim on the session (`stages/tools.py`) is still there, and a side-effecting tool that is not
declared `idempotent` is then not called again (`tool_calls.not_repeated`).

Records expire after `expires_after_s` (default 24 h = the session TTL): a turn id older than that
runs as new.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from focal.models.agent import AgentConfig
from focal.models.turn import TurnRequest, TurnResult, TurnState
from focal.ports import TurnClaim, TurnClaimStore
from focal.turn.budget import turn_budget_s

log = logging.getLogger("focal.idempotency")

CLAIM_GRACE_S = 10.0  # beyond the turn budget: tool calls and persist, which the budget does not bound
KEY_FIELDS = ("tenant_id", "agent_id", "session_id", "turn_id")
PAYLOAD_FIELDS = ("customer_id", "message")

Outcome = Literal["new", "taken_over", "replayed", "in_progress", "key_reused"]

ANSWERS: dict[str, tuple[str, str]] = {  # outcome → (error code, customer-facing text)
    "in_progress": ("turn_in_progress", "This message is still being answered; please wait a moment for the answer."),
    "key_reused": ("turn_id_reused", "This turn id was already used for a different message; please send it with a new turn id."),
    "superseded": ("turn_in_progress", "This message is being answered by a newer attempt; please ask again for its answer."),
}


@dataclass(frozen=True)
class Begun:
    outcome: Outcome
    owner: str | None = None  # "new" / "taken_over": this execution's token
    result: TurnResult | None = None  # "replayed"
    retry_after_s: int | None = None  # "in_progress": the lease's remaining whole seconds (at least 1)


def _digest(request: TurnRequest, fields: tuple[str, ...]) -> str:
    text = json.dumps([getattr(request, name) for name in fields], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def lease_s(agent: AgentConfig) -> float:
    """How long a turn's claim keeps a retry out before it may be taken over."""
    return turn_budget_s(agent) + CLAIM_GRACE_S


class TurnIdempotency:
    """Begin / hold / complete one turn id's claim. Time is the caller's `now` (the Deps clock)."""

    def __init__(self, store: TurnClaimStore, expires_after_s: int = 24 * 3600,
                 new_owner: Callable[[], str] = lambda: secrets.token_hex(16)) -> None:
        self.store = store
        self.expires_after_s = expires_after_s
        self.new_owner = new_owner

    @staticmethod
    def key(request: TurnRequest) -> str:
        return _digest(request, KEY_FIELDS)

    def begin(self, request: TurnRequest, now: float, lease: float) -> Begun:
        claim = TurnClaim(tenant_id=request.tenant_id, key=self.key(request),
                          payload_hash=_digest(request, PAYLOAD_FIELDS), owner=self.new_owner(), status="in_progress",
                          lease_until=now + lease, expires_at=now + self.expires_after_s)
        written, found = self.store.acquire(claim, now)
        if written:
            taken = found is not None and found.status == "in_progress" and found.expires_at > now
            return Begun("taken_over" if taken else "new", owner=claim.owner)
        if found is None:  # removed between the check and the read: the other request is finishing
            return Begun("in_progress", retry_after_s=1)
        if found.payload_hash != claim.payload_hash:
            return Begun("key_reused")
        if found.status == "completed" and found.result:
            return Begun("replayed", result=TurnResult.model_validate_json(found.result))
        return Begun("in_progress", retry_after_s=max(1, math.ceil(found.lease_until - now)))

    def hold(self, request: TurnRequest, owner: str, now: float) -> bool:
        """Renew the lease for the last writes; False when another execution owns the claim now."""
        return self.store.extend(request.tenant_id, self.key(request), owner, now + CLAIM_GRACE_S)

    def complete(self, request: TurnRequest, owner: str, result: TurnResult, now: float) -> bool:
        return self.store.complete(request.tenant_id, self.key(request), owner, result.model_dump_json(),
                                   now + self.expires_after_s)


def begin_turn(state: TurnState, idempotency: TurnIdempotency | None, agent: AgentConfig, now: float) -> bool:
    """The sensor's first step. True when this execution must not run the turn (answer already set)."""
    if idempotency is None:
        return False
    begun = idempotency.begin(state.request, now, lease_s(agent))
    if begun.owner is not None:
        state.sensor.claim_owner = begun.owner
        if begun.outcome == "taken_over":  # ids only: a turn id is no customer text
            log.info("turn claim taken over after its lease ended",
                     extra={"tenant_id": state.request.tenant_id, "turn_id": state.request.turn_id})
        return False
    outcome = begun.outcome
    assert outcome in ("replayed", "in_progress", "key_reused")
    state.sensor.idempotency = outcome
    if outcome == "replayed":
        state.result = begun.result
        state.control.next = "persist"
    else:
        state.refuse_early(*ANSWERS[outcome], retry_after_s=begun.retry_after_s)
    return True


def hold_turn(state: TurnState, idempotency: TurnIdempotency | None, now: float) -> bool:
    """Before the turn's writes: True while this execution owns its claim (or holds none: idempotency off,
    a resumed approval). False when another execution took it over: the answer is set to `turn_in_progress`
    and nothing may be written. A store error propagates (the caller cannot know who owns the turn)."""
    if idempotency is None or state.sensor.claim_owner is None or state.sensor.idempotency is not None:
        return True
    if idempotency.hold(state.request, state.sensor.claim_owner, now):
        return True
    state.sensor.idempotency = "superseded"
    log.warning("turn claim lost to a newer attempt; nothing written",
                extra={"tenant_id": state.request.tenant_id, "turn_id": state.request.turn_id})
    state.refuse_early(*ANSWERS["superseded"], retry_after_s=1)
    if state.error is not None:
        state.error.stage = "persist"
        state.result = state.to_result()
    return False


def complete_turn(state: TurnState, idempotency: TurnIdempotency | None, now: float) -> None:
    """Store the turn's final result as the answer to any repeat, if this execution still owns the claim.
    Never fails the turn: the turn is already recorded; if this write is lost, the claim's lease ends and a
    repeat runs again, refused by the write-once turn record."""
    if idempotency is None or state.sensor.idempotency is not None or state.result is None or state.sensor.claim_owner is None:
        return
    try:
        stored = idempotency.complete(state.request, state.sensor.claim_owner, state.result, now)
    except Exception as exc:  # noqa: BLE001 - a store error must not turn a recorded answer into a failure
        log.warning("idempotency record not completed", extra={"error": type(exc).__name__})
        return
    if not stored:
        log.warning("idempotency record not completed: the claim is no longer this execution's",
                    extra={"tenant_id": state.request.tenant_id, "turn_id": state.request.turn_id})
