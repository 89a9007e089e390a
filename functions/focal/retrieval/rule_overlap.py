"""Rules the agent wrote as overlapping: a rule and the rules every one of its own examples also meets.

The rule filter keeps a rule only within a margin of the best rule of its search (focal.dialogue.match_bounds): a rule
that merely sounds like the best one is cut. Some rules overlap by design — a rule and its special case ("asks about
travel insurance" and "asks to add travel insurance to an existing reservation"): a message meeting the special case
meets the general rule too, and the margin would cut it for scoring below the message's own words.

The agent's own texts say which rules these are, no labelled set: for each example of rule A (leave-one-out: the
example is not a key of its own), the score (the search's: calibrated cosine plus lexical evidence) of rule B's best
key divided by A's own best key. When every example of A scores B at OVERLAP or more of A's own, A's messages are
B's messages too, and when A is the best rule of a search, B is not held to the margin below it (it still passes its
own threshold and the competing flow). Measured on the example agents' labelled sets and the first held-out set with
`focal bench retrieval`: 0.8 lifted the airline agent's recall (0.83 to 0.87, held-out 0.80 to 0.87) with no precision
lost anywhere; 0.7 let one agent's overlapping money rules through each other and cost precision.

Computed once per agent config object and embedder, for agents of at most MAX_KEYS keys (as the rule thresholds).
"""

from __future__ import annotations

import numpy as np

from focal.models.agent import AgentConfig
from focal.per_object import PerObjectPair
from focal.ports import Embedder
from focal.retrieval.lexical import hybrid_score, lexical_model
from focal.retrieval.rule_thresholds import MAX_KEYS, _is_example, _vectors
from focal.retrieval.rules import rule_of

OVERLAP = 0.8

Overlaps = frozenset[tuple[str, str]]


def overlapping_rules(agent: AgentConfig, embedder: Embedder) -> Overlaps:
    """(A, B) for each pair of enabled rules where every example of A scores B at OVERLAP of A's own or more."""
    lexical = lexical_model(agent)  # its texts are the agent's keys (focal.retrieval.lexical.key_texts), built once
    if len(lexical.texts) > MAX_KEYS:
        return frozenset()
    rule_ids = {r.id for r in agent.rules if r.enabled}
    texts = {doc_id: text for doc_id, text in lexical.texts.items() if rule_of(doc_id) in rule_ids}
    if not texts:
        return frozenset()
    ids = list(texts)
    owners = [rule_of(doc_id) for doc_id in ids]
    vectors = _vectors(embedder, [texts[i] for i in ids])
    lowest: dict[tuple[str, str], float] = {}
    for n, doc_id in enumerate(ids):
        if not _is_example(doc_id):
            continue
        words = lexical.key_vector(doc_id)
        cosines = vectors @ vectors[n]
        lex = lexical.scores(words, ids)
        best: dict[str, float] = {}
        for j, other in enumerate(ids):
            if j != n:
                best[owners[j]] = max(best.get(owners[j], -np.inf), hybrid_score(float(cosines[j]), lex[other]))
        own = best.get(owners[n], 0.0)
        if own <= 0:
            continue
        for rule_id, score in best.items():
            if rule_id != owners[n]:
                pair = (owners[n], rule_id)
                lowest[pair] = min(lowest.get(pair, np.inf), score / own)
    return frozenset(pair for pair, ratio in lowest.items() if ratio >= OVERLAP)


_TABLES: PerObjectPair[AgentConfig, Embedder, Overlaps] = PerObjectPair(overlapping_rules)


def rule_overlaps(agent: AgentConfig, embedder: Embedder) -> Overlaps:
    """`overlapping_rules`, computed once per agent config object and embedder."""
    return _TABLES(agent, embedder)
