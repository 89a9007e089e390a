"""Few-shot intent detection: the nearest scenario `entry_examples` to the message."""

from __future__ import annotations

import hashlib
import threading

import numpy as np

from focal.models.agent import AgentConfig
from focal.models.context import IntentScore
from focal.ports import Embedder


class IntentIndex:
    def __init__(self, agent: AgentConfig, embedder: Embedder):
        self.labels: list[tuple[str, str]] = []  # (scenario_id, intent_label) per scenario
        texts: list[str] = []
        owners: list[int] = []
        for i, scenario in enumerate(agent.scenarios):
            self.labels.append((scenario.id, scenario.intent_label or scenario.id))
            for example in scenario.entry_examples:
                texts.append(example)
                owners.append(i)
        self.owners = np.array(owners, dtype=np.int64)
        self.matrix = embedder.embed(texts) if texts else np.zeros((0, embedder.dimension), np.float32)

    def scores(self, vector: np.ndarray) -> list[IntentScore]:
        if not self.labels or self.matrix.shape[0] == 0:
            return []
        sims = self.matrix @ vector
        best = np.full(len(self.labels), -1.0, dtype=np.float32)
        np.maximum.at(best, self.owners, sims)
        ranked = np.argsort(-best)
        return [IntentScore(scenario_id=self.labels[i][0], label=self.labels[i][1], score=float(best[i])) for i in ranked]


_cache: dict[str, IntentIndex] = {}
_lock = threading.Lock()


def intent_index(tenant_id: str, agent: AgentConfig, embedder: Embedder) -> IntentIndex:
    digest = hashlib.sha256(
        "\x1f".join(f"{s.id}\x1e{s.intent_label}\x1e" + "\x1e".join(s.entry_examples) for s in agent.scenarios).encode()
    ).hexdigest()
    key = f"{tenant_id}/{agent.id}/{digest}"
    with _lock:
        if key not in _cache:
            _cache[key] = IntentIndex(agent, embedder)
        return _cache[key]
