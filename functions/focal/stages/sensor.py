"""Stage 1 — sensor: load the conversation, pre-validate, understand the message.

Early exits (to persist): a message that fails pre-validation (rejected) and an ambiguous one
(clarify). Everything else goes on to retrieve.
"""

from __future__ import annotations

from focal.dialogue.clarify import clarify_question, likely_scenarios, suggestions
from focal.models.context import Context
from focal.models.session import CustomerProfile, Session
from focal.models.turn import TurnState
from focal.pipeline.deps import Deps
from focal.sensing.intents import intent_index
from focal.sensing.model_sensor import model_sensor
from focal.sensing.offline import offline_context
from focal.sensing.prevalidation import prevalidate


def _load(state: TurnState, deps: Deps) -> tuple[Session, CustomerProfile]:
    r = state.request
    session = deps.sessions.get(r.tenant_id, r.agent_id, r.session_id) or Session(
        tenant_id=r.tenant_id, agent_id=r.agent_id, session_id=r.session_id, customer_id=r.customer_id
    )
    profile = deps.profiles.get(r.tenant_id, r.agent_id, session.customer_id) or CustomerProfile(
        tenant_id=r.tenant_id, agent_id=r.agent_id, customer_id=session.customer_id
    )
    return session, profile


def run(state: TurnState, deps: Deps) -> TurnState:
    r = state.request
    agent = deps.configs.get_agent(r.tenant_id, r.agent_id)
    state.session, state.profile = _load(state, deps)
    text = r.message.strip()

    if agent.features.enabled and agent.features.pre_validation:
        state.prevalidation = prevalidate(agent, r.message)
        failed = [c for c in state.prevalidation if not c.passed]
        if failed:
            state.context = Context(message=text[:200], notes=[f"pre-validation failed: {c.name}" for c in failed])
            state.response = agent.pre_validation.refusal_message
            state.execution_path = "rejected"
            state.confidence = 0.0
            state.control.next = "persist"
            return state

    vector = deps.embedder.embed([text])[0]
    scores = intent_index(r.tenant_id, agent, deps.embedder).scores(vector)
    context = offline_context(agent, state.session, text, vector.tolist(), scores)

    llm = deps.llm(agent)
    if llm.available("sensor"):
        output, note = model_sensor(llm, agent, state.session, text, state.model_calls)
        context.notes.append(note)
        if output is not None:
            context = Context.model_validate({**context.model_dump(), **output.model_dump(), "source": "model"})
            if output.detected_intent:
                context.detected_intent = next(
                    (s.intent_label or s.id for s in agent.scenarios if s.id == output.detected_intent), None
                )
    else:
        context.notes.append("no model configured: offline sensor")
    state.context = context
    state.commands = list(context.commands)

    if context.is_ambiguous and agent.features.clarification:
        options = likely_scenarios(agent, context)
        state.suggested_questions = suggestions(options)
        state.response = clarify_question(options)
        state.execution_path = "clarify"
        state.confidence = round(context.intent_confidence, 4)
        state.control.next = "persist"
    return state
