"""A message with several concerns: each part searched for its own rules.

"What's the return window, and is anyone there on Saturdays?" applies two rules, but the whole message's
vector sits between them, and the rule filter keeps only rules within `rule_match_margin` of the turn's best
(focal.dialogue.rule_filter): the second concern's rule falls out. So a message of two or more parts — split
at sentence ends, semicolons and commas, each part at least PART_MIN_WORDS words (shorter pieces carry no
topic of their own: "yes, that one", "hi, quick question") — is also searched part by part. Each part adds the
one rule it fits best (the concern it raises; the rules close behind it are the whole message's to find) when
it fits it clearly (PART_ABOVE_THRESHOLD), and a rule stands in the search where it passes (the whole message's
first): its score, its competing flow and the best rule it is measured against all come from that one search.
Punctuation marks the parts in every language the product reads; no word list is involved.

Measured on the example agents' labelled sets (`focal bench retrieval`), the parts lift recall where
messages carry two concerns at a small cost in precision; the figures are in the bench's report.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from focal.dialogue.match_bounds import best_margin, crowd_floor, rule_threshold
from focal.models.agent import AgentConfig
from focal.ports import Embedder, RuleIndex, ScopeFilter
from focal.retrieval.calibration import centred
from focal.retrieval.description_gap import description_gap
from focal.retrieval.matching import ALWAYS_INCLUDED, RuleHit, search_rules
from focal.retrieval.rule_overlap import rule_overlaps
from focal.retrieval.rule_thresholds import rule_nearest_others

PART_MIN_WORDS = 4
# A part is read without the rest of the message ("can you fix it?" after "The address you have for me is wrong"): its rule
# must be stated clearly — this far above the agent's threshold — before the part adds it.
PART_ABOVE_THRESHOLD = 0.15
MAX_PARTS = 4  # a long message is not searched more than this many extra times
_BOUNDARY = re.compile(r"(?<=[.?!;])\s+|,\s+")


def message_parts(message: str) -> list[str]:
    """The parts of a message worth their own search; [] when it has fewer than two."""
    parts = [p.strip() for p in _BOUNDARY.split(message) if len(p.split()) >= PART_MIN_WORDS]
    return parts[:MAX_PARTS] if len(parts) >= 2 else []


def _shortfall(agent: AgentConfig, hit: RuleHit) -> float:
    """How far the hit is from passing the similarity decision within its own search (≤ 0: it passes)."""
    cfg = agent.retrieval
    gaps = [rule_threshold(agent, hit.nearest_other) - hit.score]
    if (floor := crowd_floor(hit.crowd)) is not None:
        gaps.append(floor - hit.score)
    if hit.best_score is not None and not hit.overlaps_best:
        gaps.append(hit.best_score - best_margin(agent, hit.best_score) - hit.score)
    if hit.flow_score is not None:
        gaps.append(hit.flow_score - cfg.rule_match_margin - hit.score)
    return max(gaps)


def merge_parts(agent: AgentConfig, whole: list[RuleHit], parts: Sequence[list[RuleHit]]) -> list[RuleHit]:
    """The whole message's hits, each part's best rule added, or standing in for the whole message's hit when it
    passes in the part and not in the whole."""
    chosen: dict[str, RuleHit] = {h.rule_id: h for h in whole}
    floor = agent.retrieval.rule_match_threshold + PART_ABOVE_THRESHOLD
    for hits in parts:
        similar = [h for h in hits if h.reason != ALWAYS_INCLUDED and h.score >= floor]
        if not similar:
            continue
        hit = max(similar, key=lambda h: h.score)
        held = chosen.get(hit.rule_id)
        if held is None or (_shortfall(agent, held) > 0 >= _shortfall(agent, hit)):
            chosen[hit.rule_id] = hit
    return sorted(chosen.values(), key=lambda h: -h.score)


def search_with_parts(agent: AgentConfig, message: str, whole: list[RuleHit],
                      search_parts: Callable[[list[str]], list[list[RuleHit]]]) -> list[RuleHit]:
    """The whole message's hits, joined by each part's (`search_parts` searches the given texts) when it has parts."""
    parts = message_parts(message)
    return merge_parts(agent, whole, search_parts(parts)) if parts else whole


def search_message(agent: AgentConfig, index: RuleIndex, embedder: Embedder, scope: ScopeFilter, message: str,
                   query: np.ndarray) -> list[RuleHit]:
    """A turn's rule hits in the index's space: the message (`query`, its centred vector) and its parts."""
    top_k, nearest = agent.retrieval.top_k, rule_nearest_others(agent, embedder)
    gap, overlaps = description_gap(agent, embedder), rule_overlaps(agent, embedder)
    whole = search_rules(agent, index, scope, query, top_k, message, nearest, gap, overlaps)
    return search_with_parts(agent, message, whole, lambda parts: [
        search_rules(agent, index, scope, q, top_k, part, nearest, gap, overlaps)
        for q, part in zip(centred(embedder, embedder.embed(parts)), parts, strict=True)])
