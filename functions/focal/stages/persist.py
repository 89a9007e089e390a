"""Stage 7 — persist: the session (conditional on its version), the profile, the turn record."""

from __future__ import annotations

from focal.models.turn import TurnRecord, TurnState
from focal.pipeline.deps import Deps
from focal.retrieval.memory import remember
from focal.sensing.extraction import coerce


def _profile_facts(state: TurnState, deps: Deps) -> None:
    """Facts the customer stated that the agent keeps across sessions (`persist_to_profile`)."""
    agent = deps.configs.get_agent(state.request.tenant_id, state.request.agent_id)
    if state.profile is None or state.context is None:
        return
    for name, value in state.context.extracted_entities.items():
        field = agent.field(name)
        if field and field.persist_to_profile and value is not None:
            state.profile.fields[name] = coerce(field.field_type, value)


def turn_record(state: TurnState, deps: Deps, turn_number: int) -> TurnRecord:
    r = state.request
    now = deps.clock()
    dumped = state.model_dump(mode="json", exclude={"result"})
    if dumped.get("context"):
        dumped["context"]["embedding"] = []  # 384 floats per turn say nothing to an auditor
    return TurnRecord(
        tenant_id=r.tenant_id, agent_id=r.agent_id, session_id=r.session_id, turn_id=r.turn_id,
        turn_number=turn_number, customer_id=r.customer_id, created_at=now,
        intent_label=state.context.detected_intent if state.context else None,
        result=state.to_result(), state=dumped, expires_at=int(now + deps.turn_ttl_s),
    )


def run(state: TurnState, deps: Deps) -> TurnState:
    session = state.session
    assert session is not None
    expected = session.version
    session.turn_count += 1
    session.remember("user", state.request.message[:2000])
    session.remember("assistant", state.response or "")
    session.expires_at = int(deps.clock() + deps.session_ttl_s)
    _profile_facts(state, deps)
    state.session = deps.sessions.save(session, expected_version=expected)
    if state.profile is not None and state.profile.fields:
        deps.profiles.save(state.profile)
    state.result = state.to_result()
    deps.turns.put(turn_record(state, deps, session.turn_count))
    remember(state, deps, deps.configs.get_agent(state.request.tenant_id, state.request.agent_id))
    return state
