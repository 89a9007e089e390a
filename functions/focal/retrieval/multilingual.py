"""Rule retrieval for a turn matched in the multilingual space (focal.sensing.spaces).

The agent's rule keys and entry examples, with every translation's examples (focal.models.translations
.matching_view), are indexed in an in-process index of that space (`Deps.multilingual_index`), synced on the turn
after a config change like the local index; the message is centred on the model's background mean, searched like
an English one (focal.retrieval.matching), and the scores are put on MiniLM's scale
(focal.retrieval.calibration.score_scale), where `retrieval.rule_match_threshold` is written.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from focal.models.agent import AgentConfig
from focal.models.localized import matching_view
from focal.ports import ScopeFilter
from focal.retrieval.calibration import centred
from focal.retrieval.matching import RuleHit, search_rules
from focal.retrieval.rules import config_digest, sync_index
from focal.sensing.spaces import embed_message, on_reference_scale

if TYPE_CHECKING:  # the deps bundle is wiring: a building block only names its type
    from focal.turn.deps import Deps

SPACE = "multilingual"


def ensure_multilingual_indexed(deps: Deps, tenant_id: str, agent: AgentConfig) -> AgentConfig:
    """The agent's keys in the multilingual index, synced when they changed; returns the view they come from."""
    assert deps.multilingual_embedder is not None and deps.multilingual_index is not None
    view = matching_view(agent)
    key = (tenant_id, f"{agent.id}\x1f{SPACE}\x1f{id(deps.multilingual_index)}")  # what is synced is this index's
    digest = config_digest(view, deps.multilingual_embedder)
    if deps.indexed.get(key) != digest:
        sync_index(deps.multilingual_index, deps.multilingual_embedder, tenant_id, view)
        deps.indexed[key] = digest
    return view


def search_multilingual(deps: Deps, tenant_id: str, agent: AgentConfig, scope: ScopeFilter, message: str,
                        notes: list[str]) -> list[RuleHit] | None:
    """The turn's rule candidates in the multilingual space; None when that space is unavailable (the caller
    searches the English one)."""
    embedder, index = deps.multilingual_embedder, deps.multilingual_index
    if embedder is None or index is None:
        return None
    vectors = embed_message(embedder, [message], notes)
    if vectors is None:
        return None
    view = ensure_multilingual_indexed(deps, tenant_id, agent)
    hits = search_rules(view, index, scope, centred(embedder, vectors[0]), agent.retrieval.top_k)
    return [replace(h, score=on_reference_scale(embedder, "rule", h.score),
                    flow_score=None if h.flow_score is None else on_reference_scale(embedder, "rule", h.flow_score))
            for h in hits]
