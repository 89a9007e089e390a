"""The embedded rule index: exact cosine search in numpy, filtered by tenant, agent and scope."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from focal.ports import IndexedRule, ScopeFilter


class NumpyRuleIndex:
    def __init__(self) -> None:
        self._rows: dict[tuple[str, str], tuple[list[IndexedRule], np.ndarray]] = {}
        self._lock = threading.Lock()

    def upsert(self, tenant_id: str, agent_id: str, rules: Sequence[IndexedRule], vectors: np.ndarray) -> None:
        """Replace the rules of one agent with these (the agent's full, current rule set)."""
        with self._lock:
            self._rows[(tenant_id, agent_id)] = (list(rules), np.asarray(vectors, dtype=np.float32))

    def search(self, scope: ScopeFilter, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        with self._lock:
            rules, matrix = self._rows.get((scope.tenant_id, scope.agent_id), ([], np.zeros((0, 1), np.float32)))
        if not rules:
            return []
        allowed = np.array([_in_scope(r, scope) for r in rules], dtype=bool)
        if not allowed.any():
            return []
        # Filter before ranking, so a filter never returns fewer than k by post-filtering.
        idx = np.flatnonzero(allowed)
        scores = matrix[idx] @ np.asarray(vector, dtype=np.float32)
        top = np.argsort(-scores)[:k]
        return [(rules[idx[i]].rule_id, float(scores[i])) for i in top]


def _in_scope(rule: IndexedRule, scope: ScopeFilter) -> bool:
    if rule.scope == "GLOBAL":
        return True
    if rule.scope == "SCENARIO":
        return rule.scope_id is not None and rule.scope_id in _ids(scope.scenario_id)
    if rule.scope == "STEP":
        return rule.scope_id is not None and rule.scope_id in _ids(scope.step_id)
    return False


def _ids(value: str | None) -> set[str]:
    # A turn may look at more than one scenario/step (the active one and the one it is entering).
    return set(value.split("|")) if value else set()
