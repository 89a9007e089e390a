"""A turn's rule candidates: the index searched with the centred message vector, keys folded into rules.

A rule is matched through its keys (its condition, its condition with its action, and its examples:
focal.retrieval.rules); its score is the best of them — a calibrated similarity
(focal.retrieval.calibration) with the key's lexical evidence added when the search is given the message's text
(focal.retrieval.lexical; entry examples alike, so a flow competes on the same scale). Each hit also carries the
rule's nearest other (focal.retrieval.rule_thresholds), from which the rule filter takes the rule's own threshold,
and the search's crowd (the mean score of its rules after the best few), which a rule must stand clear of.
The search asks the index for enough documents that `top_k` distinct rules come back even when one rule's keys
fill many places, then keeps the `top_k` best rules and every GLOBAL hard constraint the index always returns.

Beside each candidate stands the best entry example of any flow but the rule's own (scenario
documents of the same index): the rule filter lets a rule match only when it explains the message
about as well as a flow does, so "I want to dispute a charge" starts the dispute flow without
matching "How long does a dispute take?".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from focal.dialogue.match_bounds import CROWD_MAX_RULES, crowd_of
from focal.models.agent import AgentConfig, Scope
from focal.per_object import PerObject
from focal.ports import Hit, RuleIndex, ScopeFilter
from focal.retrieval.lexical import Vector, hybrid_score, lexical_model
from focal.retrieval.rules import KEY_SEPARATOR, agent_rule_keys, indexed_scope_id, rule_of

ALWAYS_INCLUDED = "always included"
FLOW_EXAMPLES_SEARCHED = 50  # entry examples looked at for the competing flows (the best per flow counts)


@dataclass(frozen=True)
class RuleHit:
    rule_id: str
    score: float
    reason: str  # "similarity", or "always included" (a GLOBAL hard constraint outside the top k)
    flow_id: str | None = None
    flow_score: float | None = None  # its best entry example, less the description gap when a description matched
    best_score: float | None = None  # the best rule's score in the same search (the rule filter's relative cut)
    nearest_other: float | None = None  # the rule's own threshold's source (focal.retrieval.rule_thresholds)
    overlaps_best: bool = False  # every example of the search's best rule meets this one too (focal.retrieval.rule_overlap)
    crowd: float | None = None  # the mean score of the search's rules after its best few (focal.dialogue.match_bounds)


def enabled_rules(agent: AgentConfig) -> int:
    return _ENABLED(agent)


_ENABLED: PerObject[AgentConfig, int] = PerObject(lambda agent: sum(1 for r in agent.rules if r.enabled))


def keys_per_rule(agent: AgentConfig) -> int:
    return max((len(agent_rule_keys(agent, r)) for r in agent.rules if r.enabled), default=1)


def _fold(hits: list[Hit]) -> tuple[dict[str, Hit], dict[str, str]]:
    """The best document of each rule (a rule is a similarity hit if any of its documents is), and its id."""
    best: dict[str, Hit] = {}
    docs: dict[str, str] = {}
    for h in hits:
        rule_id = rule_of(h.rule_id)
        seen = best.get(rule_id)
        reason = "similarity" if h.reason != ALWAYS_INCLUDED or (seen and seen.reason != ALWAYS_INCLUDED) else ALWAYS_INCLUDED
        if seen is None or h.score > seen.score:
            docs[rule_id] = h.rule_id
        score = max(h.score, seen.score) if seen else h.score
        best[rule_id] = Hit(rule_id, score, reason)
    return best, docs


def hybrid(agent: AgentConfig, hits: list[Hit], words: Vector | None) -> list[Hit]:
    """Each document's calibrated similarity with its lexical evidence added (focal.retrieval.lexical)."""
    if words is None or not hits:
        return hits
    lex = lexical_model(agent).scores(words, [h.rule_id for h in hits])
    return [Hit(h.rule_id, hybrid_score(h.score, lex[h.rule_id]), h.reason) for h in hits]


def flow_scores(agent: AgentConfig, index: RuleIndex, scope: ScopeFilter, vector: np.ndarray,
                words: Vector | None = None) -> dict[str, float]:
    """scenario id → the calibrated similarity of its best entry example to the message."""
    flows = ScopeFilter(scope.tenant_id, scope.agent_id, kind="scenario")
    out: dict[str, float] = {}
    for h in hybrid(agent, index.search(flows, vector, FLOW_EXAMPLES_SEARCHED), words):
        scenario_id = rule_of(h.rule_id)
        out[scenario_id] = max(out.get(scenario_id, -1.0), h.score)
    return out


def _own_flow(agent: AgentConfig, rule_id: str) -> str | None:
    """The scenario a SCENARIO or STEP rule belongs to (its own flow does not compete with it)."""
    rule = agent.rule(rule_id)
    if rule is None or rule.scope == Scope.GLOBAL:
        return None
    scope_id = indexed_scope_id(agent, rule)
    if rule.scope == Scope.STEP and scope_id:
        return scope_id.split(".", 1)[0]
    return scope_id


def search_rules(agent: AgentConfig, index: RuleIndex, scope: ScopeFilter, vector: np.ndarray, top_k: int,
                 text: str | None = None, nearest: Mapping[str, float] | None = None,
                 description_gap: float = 0.0, overlaps: frozenset[tuple[str, str]] = frozenset()) -> list[RuleHit]:
    """The `top_k` best rules in scope (best key each) plus the GLOBAL hard constraints always returned,
    each with its competing flow. `text`: the message, whose lexical evidence joins each key's score
    (focal.retrieval.lexical); `nearest`: each rule's nearest other (focal.retrieval.rule_thresholds);
    `description_gap`: how much lower the agent's descriptions score than its messages (focal.retrieval
    .description_gap), taken off the competing flow's score of a rule whose best key is a description; `overlaps`: the
    pairs of rules the agent wrote as overlapping (focal.retrieval.rule_overlap)."""
    words = lexical_model(agent).vector(text) if text is not None else None
    hits = hybrid(agent, index.search(scope, vector, top_k * keys_per_rule(agent)), words)
    folded, best_docs = _fold(hits)
    similar = sorted((h for h in folded.values() if h.reason != ALWAYS_INCLUDED), key=lambda h: -h.score)
    kept = similar[:top_k] + [h for h in folded.values() if h.reason == ALWAYS_INCLUDED]
    kept += [Hit(h.rule_id, h.score, ALWAYS_INCLUDED) for h in similar[top_k:] if _global_hard(agent, h.rule_id)]
    flows = flow_scores(agent, index, scope, vector, words) if kept else {}
    best = max((h.score for h in kept), default=None)
    best_id = max(kept, key=lambda h: h.score).rule_id if kept else None
    crowd = crowd_of([h.score for h in similar[:top_k]]) if enabled_rules(agent) <= CROWD_MAX_RULES else None
    out = []
    for h in kept:
        own = _own_flow(agent, h.rule_id)
        flow_id, flow_score = max(((f, s) for f, s in flows.items() if f != own), key=lambda fs: fs[1], default=(None, None))
        if flow_score is not None and is_description(best_docs.get(h.rule_id, h.rule_id)):
            flow_score -= description_gap
        out.append(RuleHit(h.rule_id, h.score, h.reason, flow_id, flow_score, best_score=best,
                           nearest_other=(nearest or {}).get(h.rule_id), overlaps_best=(best_id, h.rule_id) in overlaps, crowd=crowd))
    return out


def is_description(doc_id: str) -> bool:
    """A key that describes the rule (its condition, alone or with its action), not a message (one of its examples)."""
    return not doc_id.partition(KEY_SEPARATOR)[2].isdigit()


def _global_hard(agent: AgentConfig, rule_id: str) -> bool:
    rule = agent.rule(rule_id)
    return bool(rule and rule.is_hard_constraint and rule.scope == Scope.GLOBAL)
