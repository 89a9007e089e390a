"""Each rule's nearest other: how close the rest of what the agent knows comes to the rule, from its own texts.

For every enabled rule, the best score (the search's: calibrated cosine plus lexical evidence, focal.retrieval
.lexical) that any other rule's example or any flow's entry example reaches on the rule's keys. The rule filter
lets a rule match down to that score (bounded, focal.dialogue.match_bounds): a rule phrased unlike everything else
the agent holds is told apart at a lower score than one with close neighbours. Only the agent's own texts are used
(leave-one-out over its keys: a rule's own examples never count for it), no labelled set.

Computed once per agent config object and embedder. The keys' vectors come from the embedder's memo when the index
sync of the same process embedded them (40 ms for the retail example's 139 keys); a process that did not sync (a
function whose index was filled at upload) embeds them once on its first turn for that config (about 7 ms a key on
one core: 1 s for 139 keys). That cost, and the pairwise scores, grow with the agent's keys, so an agent of more than
MAX_KEYS keys has none: its rules match at the agent's threshold, as before.
"""

from __future__ import annotations

import numpy as np

from focal.models.agent import AgentConfig
from focal.per_object import PerObjectPair
from focal.ports import Embedder, embed_fixed
from focal.retrieval.calibration import centred
from focal.retrieval.lexical import hybrid_score, key_texts, lexical_model
from focal.retrieval.rules import KEY_SEPARATOR, rule_of

MAX_KEYS = 600
_BATCH = 64


def _is_example(doc_id: str) -> bool:
    """A probe: an example of a rule ('rule#n') or a flow's entry example ('scenario#n')."""
    return doc_id.partition(KEY_SEPARATOR)[2].isdigit()


def _vectors(embedder: Embedder, texts: list[str]) -> np.ndarray:
    parts = [centred(embedder, embed_fixed(embedder, texts[i:i + _BATCH])) for i in range(0, len(texts), _BATCH)]
    return np.vstack(parts)


def nearest_others(agent: AgentConfig, embedder: Embedder) -> dict[str, float]:
    """Rule id → the best score another rule's example or a flow's entry example reaches on its keys ({} above MAX_KEYS)."""
    texts = key_texts(agent)
    if len(texts) > MAX_KEYS or not texts:
        return {}
    rule_ids = {r.id for r in agent.rules if r.enabled}
    ids = list(texts)
    vectors = _vectors(embedder, [texts[i] for i in ids])
    probes = [n for n, doc_id in enumerate(ids) if _is_example(doc_id)]
    if not probes:
        return {}
    lexical = lexical_model(agent)
    owners = np.asarray([rule_of(doc_id) for doc_id in ids])
    cosines = vectors @ vectors[probes].T  # keys × probes
    out: dict[str, float] = {}
    for n, doc_id in enumerate(ids):
        rule_id = rule_of(doc_id)
        if rule_id not in rule_ids:
            continue
        best = out.get(rule_id, -np.inf)
        key_vector = lexical.key_vector(doc_id)
        for j in np.argsort(-cosines[n]):
            cosine = float(cosines[n, j])
            if hybrid_score(cosine, 1.0) <= best:
                break  # the lexical score is at most 1: no later probe can do better
            if owners[probes[j]] == rule_id:
                continue
            lex = lexical.scores(key_vector, [ids[probes[j]]])[ids[probes[j]]]
            best = max(best, hybrid_score(cosine, lex))
        if np.isfinite(best):
            out[rule_id] = float(best)
    return out


_TABLES: PerObjectPair[AgentConfig, Embedder, dict[str, float]] = PerObjectPair(nearest_others)


def rule_nearest_others(agent: AgentConfig, embedder: Embedder) -> dict[str, float]:
    """`nearest_others`, computed once per agent config object and embedder."""
    return _TABLES(agent, embedder)
