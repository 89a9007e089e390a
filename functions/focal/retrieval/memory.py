"""Episodic memory: each finished turn leaves a short episode for its customer (persist), and a new
turn recalls the few most similar earlier ones of the same customer and agent (retrieve), which
generate sees. Bounded in count (`scan_limit`, `recall_k`) and age (`max_age_days`, TTL), keyed by
tenant, agent and customer like everything else. What the customer asked is stored masked (card
numbers, this turn's `pii: true` values: `focal.pii`), masked before it is shortened. Anonymous
customers get no memory: "anonymous" is many people, and one must never be shown another's past.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from focal.models.agent import AgentConfig
from focal.models.memory import Episode, RecalledEpisode
from focal.models.turn import TurnState
from focal.pii import TurnTexts
from focal.turn.deps import Deps

if TYPE_CHECKING:  # numpy loads with the stages that embed (retrieve), not with persist's init
    import numpy as np

ANONYMOUS = "anonymous"
ASKED_CHARS = 200


def _enabled(agent: AgentConfig, deps: Deps, customer_id: str) -> bool:
    return agent.memory.enabled and deps.episodes is not None and customer_id != ANONYMOUS


def decided(state: TurnState) -> str:
    """What the turn did, in a few words (ids only, never the answer's text)."""
    d = state.route.decision
    parts = [f"{d.scenario_id}/{d.step_id}" if d.scenario_id else d.action]
    tools = [f"{t.tool_id} {t.status}" for t in state.tools.tool_calls]
    if tools:
        parts.append("tools " + ", ".join(tools))
    if state.route.matched_rules:
        parts.append("rules " + ", ".join(m.rule_id for m in state.route.matched_rules))
    parts.append(state.execution_path)
    return " · ".join(parts)[:300]


def remember(state: TurnState, deps: Deps, agent: AgentConfig, texts: TurnTexts | None = None) -> None:
    """Leave the turn's episode; `texts`: the turn's texts as persist masks them (read once per turn)."""
    r = state.request
    session = state.session
    if not _enabled(agent, deps, session.customer_id if session else r.customer_id) or state.sensor.context is None:
        return
    if state.execution_path == "rejected" or not state.sensor.context.embedding:
        return  # a refused message is audited in the turn record, not remembered
    now = deps.clock()
    assert deps.episodes is not None and session is not None
    deps.episodes.put(Episode(
        tenant_id=r.tenant_id, agent_id=r.agent_id, customer_id=session.customer_id, session_id=r.session_id,
        turn_id=r.turn_id, created_at=now, asked=(texts or TurnTexts(state, agent)).mask(state.sensor.context.message)[:ASKED_CHARS],
        decided=decided(state),
        embedding=[round(x, 5) for x in state.sensor.context.embedding],
        expires_at=int(now + agent.memory.max_age_days * 86400),
    ))


def recall(state: TurnState, deps: Deps, agent: AgentConfig, vector: np.ndarray) -> list[RecalledEpisode]:
    """The customer's earlier episodes most similar to this message, from other conversations."""
    session = state.session
    assert session is not None
    cfg = agent.memory
    if not _enabled(agent, deps, session.customer_id) or cfg.recall_k == 0:
        return []
    assert deps.episodes is not None
    r = state.request
    oldest = deps.clock() - cfg.max_age_days * 86400
    earlier = [e for e in deps.episodes.recent(r.tenant_id, r.agent_id, session.customer_id, cfg.scan_limit)
               if e.session_id != r.session_id and e.created_at >= oldest and e.embedding]
    if not earlier:
        return []
    import numpy as np

    scores = np.asarray([e.embedding for e in earlier], dtype=np.float32) @ vector
    ranked = sorted(zip(scores.tolist(), earlier), key=lambda p: -p[0])
    return [RecalledEpisode(session_id=e.session_id, created_at=e.created_at, asked=e.asked, decided=e.decided,
                            score=round(score, 4))
            for score, e in ranked[:cfg.recall_k] if score >= cfg.min_similarity]
