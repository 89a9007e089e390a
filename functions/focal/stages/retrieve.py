"""Stage 2 — retrieve: scoped rule candidates by similarity to the message (k-NN, filtered by scope),
and the customer's most similar earlier episodes."""

from __future__ import annotations

import numpy as np

from focal.models.turn import ScoredRule, TurnState
from focal.pipeline.deps import Deps
from focal.retrieval.memory import recall
from focal.retrieval.rules import ensure_indexed, turn_scope


def run(state: TurnState, deps: Deps) -> TurnState:
    r = state.request
    agent = deps.configs.get_agent(r.tenant_id, r.agent_id)
    assert state.session is not None and state.context is not None
    if deps.sync_on_turn:
        ensure_indexed(deps, r.tenant_id, agent)
    entering = [c.flow for c in state.commands if c.name == "StartFlow" and c.flow]
    scope = turn_scope(r.tenant_id, agent, state.session, entering)
    vector = np.asarray(state.context.embedding, dtype=np.float32)
    if vector.size == 0:
        vector = deps.embedder.embed([state.context.message])[0]
    hits = deps.rule_index.search(scope, vector, agent.retrieval.top_k)
    state.candidates = [
        ScoredRule(rule_id=hit.rule_id, score=round(hit.score, 4), scope=rule.scope.value, reason=hit.reason)
        for hit in hits
        if (rule := agent.rule(hit.rule_id)) is not None
    ]
    state.episodes = recall(state, deps, agent, vector)
    return state
