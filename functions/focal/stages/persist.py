"""Stage 7 — persist: the session (conditional on its version), the profile, the turn record.

Session conflicts (`VersionConflict`: another turn of the same session saved first). A turn whose
side effects ran (or an approved action resumed) reconciles: its tool outputs and finished step are
applied to the latest session (`dialogue/reconcile.py`) and saved, retried up to `COUNT_ATTEMPTS`
times — the fact that an action ran is never dropped. Any other turn's session changes are NOT
merged — flow state cannot be merged safely — so it answers with the structured error
`session_conflict` (the customer is asked to send the message again; also when the tools stage found
the session claimed by a concurrent turn), its profile facts are not saved, and it is still
recorded: the stored session's turn count and history advance by a small re-read-and-write retried
up to `COUNT_ATTEMPTS` times, and the turn record keeps the full trace. Throttling retries belong to
the store adapters, not here.

A repeated turn id (`state.sensor.idempotency` set by the sensor) writes nothing: the answer came from
the idempotency store. Every other turn first holds its claim on the turn id (an execution whose claim
was taken over writes nothing), and its final result is stored there last (see
`focal.turn.idempotency`).

State (focal.models.turn): reads every part (the turn record keeps the whole state); owns `result`; saves
`session` and `profile`. A lost claim or session race sets `sensor.idempotency` / `sensor.foreign_session`
and `error`; a reconciled session is noted on `route.decision`.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any

from focal.dialogue.notices import say_in_language
from focal.dialogue.ownership import ownership
from focal.dialogue.reconcile import apply_effects, effects
from focal.errors import VersionConflict
from focal.models.agent import AgentConfig
from focal.models.engine_texts import english
from focal.models.session import PiiCarry, Session
from focal.models.turn import TurnError, TurnRecord, TurnState
from focal.pii import TurnTexts, digit_rules
from focal.pii_carry import CarryPlan
from focal.retrieval.memory import remember
from focal.sensing.extraction import coerce
from focal.sensing.provenance import customer_may_set
from focal.turn.deps import Deps
from focal.turn.idempotency import complete_turn, hold_turn


def _profile_facts(state: TurnState, deps: Deps) -> None:
    """Facts the customer stated that the agent keeps across sessions (`persist_to_profile`), for
    fields the customer may set (sources include `message`, not privileged)."""
    agent = deps.configs.get_agent(state.request.tenant_id, state.request.agent_id)
    if state.profile is None or state.sensor.context is None:
        return
    for name, value in state.sensor.context.extracted_entities.items():
        field = agent.field(name)
        if field and field.persist_to_profile and value is not None and customer_may_set(agent, name):
            state.profile.fields[name] = coerce(field.field_type, value)


def turn_record(state: TurnState, deps: Deps, turn_number: int) -> TurnRecord:
    r = state.request
    now = deps.clock()
    dumped = state.model_dump(mode="json", exclude={"result"})
    if dumped["sensor"].get("context"):
        dumped["sensor"]["context"]["embedding"] = []  # 384 floats per turn say nothing to an auditor
    return TurnRecord(
        tenant_id=r.tenant_id, agent_id=r.agent_id, session_id=r.session_id, turn_id=r.turn_id,
        turn_number=turn_number, customer_id=r.customer_id, created_at=now,
        intent_label=state.sensor.context.detected_intent if state.sensor.context else None,
        result=state.to_result(), state=dumped, expires_at=int(now + deps.turn_ttl_s),
    )


def _agent_or_none(state: TurnState, deps: Deps) -> AgentConfig | None:
    try:  # the fallback counts turns even when the config store is down: then only card numbers are masked
        return deps.configs.get_agent(state.request.tenant_id, state.request.agent_id)
    except Exception:  # noqa: BLE001
        return None


COUNT_ATTEMPTS = 3
CONFLICT_MESSAGE = english("write_conflict")


def carry_plan(state: TurnState, deps: Deps) -> CarryPlan:
    """What masking at rest carries over from this message to the next, and what it masks in this turn's writes
    besides the text rules (a card typed over several messages: `focal.pii_carry`)."""
    carry = state.session.pii_carry if state.session is not None else PiiCarry()
    message = "" if state.resume is not None else state.request.message
    return CarryPlan.of(carry, message, state.response or "", state.request.turn_id, deps.clock())


def remask_earlier(state: TurnState, deps: Deps, plan: CarryPlan) -> None:
    """The stored records of the messages that held the earlier parts of a card this turn completed, masked
    again under the turn's digit rules (within `digit_rules(plan.rules)`)."""
    r = state.request
    customer = state.session.customer_id if state.session is not None else r.customer_id
    for tail in plan.earlier:
        deps.turns.remask(r.tenant_id, r.agent_id, r.session_id, tail.turn_id)
        if deps.episodes is not None:
            deps.episodes.remask(r.tenant_id, r.agent_id, customer, tail.turn_id, tail.at)


def count_turn(state: TurnState, deps: Deps, plan: CarryPlan | None = None) -> int:
    """Advance the STORED session's turn count and history (nothing else: this turn's changes are
    dropped). Re-read and retried on a conflict, at most COUNT_ATTEMPTS times; 0 if it never landed."""
    r = state.request
    plan = plan or carry_plan(state, deps)
    for _ in range(COUNT_ATTEMPTS):
        found = deps.sessions.get(r.tenant_id, r.agent_id, r.session_id)
        if ownership(found, r.customer_id) == "foreign":
            state.sensor.foreign_session = True
            return 0  # a failed turn on another customer's session: nothing of it lands in that conversation
        stored = found or Session(
            tenant_id=r.tenant_id, agent_id=r.agent_id, session_id=r.session_id, customer_id=r.customer_id
        )
        expected = stored.version
        _count(state, deps, stored, plan)
        try:
            deps.sessions.save(stored, expected_version=expected)
            return stored.turn_count
        except VersionConflict:
            continue
    return 0


def _count(state: TurnState, deps: Deps, session: Session, plan: CarryPlan, texts: TurnTexts | None = None) -> None:
    session.turn_count += 1
    session.pii_carry = plan.carry
    # Masked here, not only by the store: on a conflict the stored session does not hold this turn's pii values.
    texts = texts or TurnTexts(state, _agent_or_none(state, deps))
    if state.resume is None:  # a resumed approval has no customer message
        session.remember("user", texts.mask(state.request.message)[:2000])
    session.remember("assistant", texts.mask(state.response or ""))
    session.expires_at = int(deps.clock() + deps.session_ttl_s)
    if session.offer is not None and session.offer.kind != "resume" and "?" not in (state.response or ""):
        # the answer the customer got asks nothing (a model's direct answer, a fallback text): no "yes" may take up
        # an offer they never saw. An interrupted flow's resume offer stays: taking it up runs nothing by itself.
        session.offer = None


def _reconcile(state: TurnState, deps: Deps, agent: AgentConfig, plan: CarryPlan, texts: TurnTexts) -> bool:
    """Save the turn's effects onto the latest session; False if no attempt landed."""
    r = state.request
    for _ in range(COUNT_ATTEMPTS):
        fresh = deps.sessions.get(r.tenant_id, r.agent_id, r.session_id)
        if fresh is None:
            return False
        expected = fresh.version
        apply_effects(agent, state, fresh)
        _count(state, deps, fresh, plan, texts)
        try:
            state.session = deps.sessions.save(fresh, expected_version=expected)
        except VersionConflict:
            continue
        state.route.decision.notes.append("session reconciled: another turn saved first; this turn's actions were applied to it")
        if fresh.active_scenario_id:  # the result names where the conversation really is
            state.route.decision.scenario_id, state.route.decision.step_id = fresh.active_scenario_id, fresh.active_step_id
        return True
    return False


def _conflict(state: TurnState, deps: Deps, plan: CarryPlan) -> TurnState:
    state.error = TurnError(code=VersionConflict.code, message=CONFLICT_MESSAGE, stage="persist")
    state.response = CONFLICT_MESSAGE
    state.execution_path = "fallback"
    state.confidence = 0.0
    state.result = state.to_result()
    turn_number = count_turn(state, deps, plan)
    if not state.sensor.foreign_session:  # lost the race for a new session id to another customer: nothing lands in it
        deps.turns.put(turn_record(state, deps, turn_number))
        remask_earlier(state, deps, plan)
    complete_turn(state, deps.idempotency, deps.clock())
    return state


def _one_commit(deps: Deps) -> AbstractContextManager[Any]:
    """The turn's writes in one transaction where the store offers one (SQLite: the stores share a
    connection); elsewhere each write commits on its own. Every write keeps its own condition."""
    begin = getattr(deps.sessions, "transaction", None)
    return begin() if callable(begin) else nullcontext()


def run(state: TurnState, deps: Deps) -> TurnState:
    with _one_commit(deps):
        return _run(state, deps)


def _run(state: TurnState, deps: Deps) -> TurnState:
    if state.sensor.idempotency is not None:
        return state  # a repeated turn id: the sensor answered from the idempotency store; write nothing
    if not hold_turn(state, deps.idempotency, deps.clock()):
        return state  # another execution took this turn over (this one outlived its lease): write nothing
    if state.sensor.foreign_session:
        complete_turn(state, deps.idempotency, deps.clock())  # another customer's session: nothing is written to it
        return state
    # the engine's texts in the customer's language, before the answer is written anywhere
    say_in_language(state, _agent_or_none(state, deps))
    plan = carry_plan(state, deps)
    with digit_rules(plan.rules):  # every document this turn writes masks them too
        if state.error is not None and state.error.code == VersionConflict.code:
            return _conflict(state, deps, plan)  # the tools stage found the session claimed by a concurrent turn
        return _write(state, deps, plan)


def _write(state: TurnState, deps: Deps, plan: CarryPlan) -> TurnState:
    agent = deps.configs.get_agent(state.request.tenant_id, state.request.agent_id)
    session = state.session
    assert session is not None
    expected = session.version
    session.action_claims.pop(state.request.turn_id, None)
    texts = TurnTexts(state, agent)
    _count(state, deps, session, plan, texts)
    _profile_facts(state, deps)
    try:
        state.session = deps.sessions.save(session, expected_version=expected)
    except VersionConflict:
        if not (effects(agent, state.tools) or state.resume is not None) or not _reconcile(state, deps, agent, plan, texts):
            return _conflict(state, deps, plan)
    # Save when facts changed or the profile was migrated to the agent's schema on read.
    if state.profile is not None and (state.profile.fields or state.sensor.profile_migration):
        deps.profiles.save(state.profile)
    state.result = state.to_result()
    assert state.session is not None  # saved above, or replaced by the reconciled session
    deps.turns.put(turn_record(state, deps, state.session.turn_count))
    remember(state, deps, agent, texts)
    remask_earlier(state, deps, plan)
    complete_turn(state, deps.idempotency, deps.clock())
    return state
