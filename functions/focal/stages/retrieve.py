"""Stage 2 — retrieve: scoped rule candidates by calibrated similarity to the message (k-NN over each
rule's keys, filtered by scope, focal.retrieval.matching), and the customer's most similar earlier episodes.
Each candidate carries what competes with it: another flow's best entry example and, when the message
answers the question asked last turn, that answer's similarity (focal.retrieval.slot_answer).

An unreachable or failing rule index (OpenSearch down, a refused search) does not fail the turn: the
stage goes on with no candidates, marks the turn `degraded: ["retrieval"]` with the reason in
`sensor.context.notes`, and enforce still checks every GLOBAL hard constraint, which it reads from the
config, not the index.

State (focal.models.turn): reads `request`, `session`, `sensor` (context, commands); owns `retrieve`.
"""

from __future__ import annotations

import logging

import numpy as np

from focal.models.agent import AgentConfig
from focal.models.turn import ScoredRule, TurnState
from focal.ports import ScopeFilter
from focal.retrieval.calibration import centred
from focal.retrieval.matching import RuleHit
from focal.retrieval.memory import recall
from focal.retrieval.message_parts import search_message, search_with_parts
from focal.retrieval.multilingual import search_multilingual
from focal.retrieval.rules import ensure_indexed, turn_scope
from focal.retrieval.slot_answer import answer_score, slot_answer
from focal.sensing.spaces import MultilingualSpaceUnavailable, multilingual_turn
from focal.turn.deps import Deps

logger = logging.getLogger("focal.retrieve")
DEGRADED = "retrieval"


def _search(state: TurnState, deps: Deps, agent: AgentConfig, scope: ScopeFilter, query: np.ndarray) -> list[RuleHit]:
    """The rule hits of the message and of each of its parts (focal.retrieval.message_parts), in the turn's space."""
    assert state.session is not None and state.sensor.context is not None
    message, lang = state.sensor.context.message, state.session.language
    if multilingual_turn(agent, lang):  # a turn in another language: its own space (focal.retrieval.multilingual)
        (whole,) = search_multilingual(deps, state.request.tenant_id, agent, scope, [message], lang)
        return search_with_parts(agent, message, whole,
                                 lambda parts: search_multilingual(deps, state.request.tenant_id, agent, scope, parts, lang))
    if deps.sync_on_turn:
        ensure_indexed(deps, state.request.tenant_id, agent)
    return search_message(agent, deps.rule_index, deps.embedder, scope, message, query)


def run(state: TurnState, deps: Deps) -> TurnState:
    r = state.request
    agent = deps.configs.get_agent(r.tenant_id, r.agent_id)
    assert state.session is not None and state.sensor.context is not None
    entering = [c.flow for c in state.sensor.commands if c.name == "StartFlow" and c.flow]
    scope = turn_scope(r.tenant_id, agent, state.session, entering)
    vector = np.asarray(state.sensor.context.embedding, dtype=np.float32)
    if vector.size == 0:
        vector = deps.embedder.embed([state.sensor.context.message])[0]
    query = centred(deps.embedder, vector)
    hits: list[RuleHit]
    try:
        hits = _search(state, deps, agent, scope, query)
    except MultilingualSpaceUnavailable:
        raise  # the turn needs a model this deployment lacks: fail closed, not a turn without rules
    except Exception as exc:  # noqa: BLE001 - any index failure (RuleIndexError, transport errors) degrades the turn
        hits = []
        if DEGRADED not in state.degraded:
            state.degraded.append(DEGRADED)
        state.sensor.context.notes.append(  # route rebuilds `decision`; the context's notes reach the record
            f"retrieve: retrieval degraded: rule index unavailable ({type(exc).__name__}); no rule candidates, "
            "GLOBAL hard constraints still enforced from the config"
        )
        logger.warning("rule index unavailable, retrieval degraded: %s", type(exc).__name__)  # never the message text
    answer = slot_answer(agent, state.session, state.sensor.commands, state.sensor.context.extracted_entities) if hits else None
    answered = answer_score(deps.embedder, answer, query) if answer else None
    state.retrieve.candidates = [
        ScoredRule(rule_id=hit.rule_id, score=round(hit.score, 4), scope=rule.scope.value, reason=hit.reason,
                   flow_id=hit.flow_id, flow_score=None if hit.flow_score is None else round(hit.flow_score, 4),
                   best_score=None if hit.best_score is None else round(hit.best_score, 4),
                   nearest_other=None if hit.nearest_other is None else round(hit.nearest_other, 4),
                   overlaps_best=hit.overlaps_best, crowd_score=None if hit.crowd is None else round(hit.crowd, 4),
                   answer_slot=answer.slot if answer else None, answer_score=answered)
        for hit in hits
        if (rule := agent.rule(hit.rule_id)) is not None
    ]
    state.retrieve.episodes = recall(state, deps, agent, vector)
    return state
