"""How much lower a description scores than a message for the same request, measured on the agent's own flows.

A rule is matched by its best key. Its examples are messages; its condition ("the customer asks about fees") is a
description, and a message that meets it scores lower against that description than against another message saying
the same. A flow competes with a rule by its best entry example, always a message: a rule written without examples
(as a business first writes its guidance) loses that comparison to any flow its message touches, however clearly it
applies. So when a rule's best key is a description, the competing flow's score is lowered by this gap.

The gap is read from the agent itself, no labelled set: each flow is a description (its name) beside messages (its
entry examples). For every entry example, its best score against the flow's other examples less its score against
the flow's name (both as the search scores: calibrated cosine plus lexical evidence); the gap is the median of these,
bounded to [0, MAX_GAP]. An agent with no flow of two entry examples has no gap (0: the comparison as before).
Computed once per agent config object and embedder.
"""

from __future__ import annotations

import numpy as np

from focal.models.agent import AgentConfig
from focal.per_object import PerObjectPair
from focal.ports import Embedder, embed_fixed
from focal.retrieval.calibration import centred
from focal.retrieval.lexical import hybrid_score, lexical_model, sparse_cosine

MAX_GAP = 0.25


def _flow_gaps(agent: AgentConfig, embedder: Embedder) -> list[float]:
    """Per entry example: its best score against its flow's other examples less its score against the flow's name."""
    lexical = lexical_model(agent)
    gaps: list[float] = []
    for scenario in agent.scenarios:
        examples = [e for e in scenario.entry_examples if e.strip()]
        if len(examples) < 2 or not scenario.name.strip():
            continue
        vectors = centred(embedder, embed_fixed(embedder, [scenario.name, *examples]))
        words = [lexical.vector(t) for t in (scenario.name, *examples)]
        cosines = vectors @ vectors.T  # row/column 0: the name; the others: the entry examples
        scores = [[hybrid_score(float(cosines[i, j]), sparse_cosine(words[i], words[j])) for j in range(len(words))]
                  for i in range(len(words))]
        for i in range(1, len(words)):
            best_message = max(scores[i][j] for j in range(1, len(words)) if j != i)
            gaps.append(best_message - scores[i][0])
    return gaps


def measure_gap(agent: AgentConfig, embedder: Embedder) -> float:
    """The agent's description gap, in [0, MAX_GAP]."""
    gaps = _flow_gaps(agent, embedder)
    return float(min(MAX_GAP, max(0.0, np.median(gaps)))) if gaps else 0.0


_GAPS: PerObjectPair[AgentConfig, Embedder, float] = PerObjectPair(measure_gap)


def description_gap(agent: AgentConfig, embedder: Embedder) -> float:
    """`measure_gap`, computed once per agent config object and embedder."""
    return _GAPS(agent, embedder)
