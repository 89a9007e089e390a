"""The embedded index: exact cosine search in numpy, filtered by tenant, agent, kind and scope.

With a folder, each agent's documents and vectors are kept in one file there (written atomically
after every change, read on start), so a restart or `focal index` re-embeds only what changed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from focal.ports import Hit, IndexedRule, ScopeFilter


class _AgentDocs:
    def __init__(self) -> None:
        self.docs: list[IndexedRule] = []
        self.matrix = np.zeros((0, 0), dtype=np.float32)


class NumpyRuleIndex:
    def __init__(self, folder: str | Path | None = None) -> None:
        self._agents: dict[tuple[str, str], _AgentDocs] = {}
        self._lock = threading.Lock()
        self.folder = Path(folder) if folder else None

    def _file(self, tenant_id: str, agent_id: str) -> Path:
        assert self.folder is not None
        name = hashlib.sha256(f"{tenant_id}\x1f{agent_id}".encode()).hexdigest()[:24]
        return self.folder / f"{name}.npz"

    def _entry(self, tenant_id: str, agent_id: str) -> _AgentDocs | None:
        """The agent's documents, loaded from the folder on first use. Call with the lock held."""
        key = (tenant_id, agent_id)
        if key not in self._agents and self.folder is not None and self._file(*key).exists():
            with np.load(self._file(*key), allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                if (meta["tenant_id"], meta["agent_id"]) == key:  # never another tenant's file
                    entry = _AgentDocs()
                    entry.docs = [IndexedRule(**d) for d in meta["docs"]]
                    entry.matrix = data["matrix"].astype(np.float32)
                    self._agents[key] = entry
        return self._agents.get(key)

    def _save(self, tenant_id: str, agent_id: str, entry: _AgentDocs) -> None:
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        meta = {"tenant_id": tenant_id, "agent_id": agent_id, "docs": [dataclasses.asdict(d) for d in entry.docs]}
        target = self._file(tenant_id, agent_id)
        tmp = target.with_suffix(".tmp.npz")
        np.savez(tmp, matrix=entry.matrix, meta=np.array(json.dumps(meta)))
        os.replace(tmp, target)

    def upsert(self, tenant_id: str, agent_id: str, docs: Sequence[IndexedRule], vectors: np.ndarray) -> None:
        vectors = np.asarray(vectors, dtype=np.float32)
        with self._lock:
            entry = self._entry(tenant_id, agent_id) or self._agents.setdefault((tenant_id, agent_id), _AgentDocs())
            replaced = {d.rule_id for d in docs}
            keep = [i for i, d in enumerate(entry.docs) if d.rule_id not in replaced]
            old = entry.matrix[keep] if entry.docs else np.zeros((0, vectors.shape[1]), np.float32)
            entry.docs = [entry.docs[i] for i in keep] + list(docs)
            entry.matrix = np.vstack([old, vectors]) if len(old) else vectors.copy()
            self._save(tenant_id, agent_id, entry)

    def delete(self, tenant_id: str, agent_id: str, ids: Sequence[str]) -> None:
        gone = set(ids)
        with self._lock:
            entry = self._entry(tenant_id, agent_id)
            if entry is None or not entry.docs:
                return
            keep = [i for i, d in enumerate(entry.docs) if d.rule_id not in gone]
            entry.docs = [entry.docs[i] for i in keep]
            entry.matrix = entry.matrix[keep]
            self._save(tenant_id, agent_id, entry)

    def digests(self, tenant_id: str, agent_id: str) -> dict[str, str]:
        with self._lock:
            entry = self._entry(tenant_id, agent_id)
            return {d.rule_id: d.digest for d in entry.docs} if entry else {}

    def search(self, scope: ScopeFilter, vector: np.ndarray, k: int) -> list[Hit]:
        with self._lock:
            entry = self._entry(scope.tenant_id, scope.agent_id)
            docs, matrix = (entry.docs, entry.matrix) if entry else ([], None)
        if not docs or matrix is None:
            return []
        allowed = np.array([in_scope(d, scope) for d in docs], dtype=bool)
        if not allowed.any():
            return []
        # Filter before ranking, so a filter never returns fewer than k by post-filtering.
        idx = np.flatnonzero(allowed)
        scores = matrix[idx] @ np.asarray(vector, dtype=np.float32)
        order = np.argsort(-scores)
        hits = [Hit(docs[idx[i]].rule_id, float(scores[i])) for i in order[:k]]
        if scope.kind == "rule":
            hits += [Hit(docs[idx[i]].rule_id, float(scores[i]), "always included")
                     for i in order[k:] if docs[idx[i]].hard and docs[idx[i]].scope == "GLOBAL"]
        return hits


def in_scope(doc: IndexedRule, scope: ScopeFilter) -> bool:
    if doc.kind != scope.kind:
        return False
    if doc.kind == "scenario" or doc.scope == "GLOBAL":
        return True
    if doc.scope == "SCENARIO":
        return doc.scope_id in scope.scenario_ids
    if doc.scope == "STEP":
        return doc.scope_id in scope.step_ids
    return False
