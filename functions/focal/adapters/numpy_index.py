"""The embedded index: exact cosine search in numpy, filtered by tenant, agent, kind and scope.

With a folder, each agent's documents and vectors are kept in one file there (written atomically
after every change, read on start), so a restart or `focal index` re-embeds only what changed.

Layout. An agent's documents are grouped in blocks, one per (kind, scope, scope_id) (GLOBAL documents
in one block per kind, whatever their scope_id). A search scores only the blocks its scope allows
(GLOBAL + the scope's scenarios + its steps; for kind "scenario" every block of that kind), so its
cost follows the documents in scope, not the agent's total. Each block holds its vectors in a
preallocated float32 buffer that grows geometrically; a map id → (block, row) lets an upsert or a
delete touch only the rows concerned (removing a row moves the block's last row into its place).

Sequence. Every document gets a sequence number when it is upserted; the sequence is the one of the
documents list this index has always kept (a replaced document goes to the end). Results are ranked by
score, highest first, and equal scores by sequence number, so ties break deterministically in favour
of the document indexed (or last replaced) earlier — independently of where it sits in its block.
The file keeps the documents by sequence number, as before, so old and new files read both ways.

Documents are treated as immutable once upserted (scope, kind and hardness are read at upsert time).
Searches run under the index lock, like every other operation.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from focal.ports import Hit, IndexedRule, ScopeFilter

_BlockKey = tuple[str, str, object]


def _block_key(doc: IndexedRule) -> _BlockKey:
    return (doc.kind, "GLOBAL", None) if doc.scope == "GLOBAL" else (doc.kind, doc.scope, doc.scope_id)


class _Doc:
    """One indexed document: where its vector lives, and its place in the index's sequence."""

    __slots__ = ("doc", "block", "row", "json")

    def __init__(self, doc: IndexedRule, block: _Block, row: int) -> None:
        self.doc = doc
        self.block: _Block | None = block
        self.row = row
        self.json: str | None = None  # the document as the file stores it, made on first save


class _Block:
    """The documents of one (kind, scope, scope_id): rows [0, n) of preallocated buffers."""

    __slots__ = ("key", "rows", "matrix", "seq", "hard")

    def __init__(self, key: _BlockKey, dim: int) -> None:
        self.key = key
        self.rows: list[_Doc] = []
        self.matrix = np.empty((0, dim), dtype=np.float32)
        self.seq = np.empty(0, dtype=np.int64)
        self.hard = np.empty(0, dtype=bool)

    @property
    def n(self) -> int:
        return len(self.rows)

    def _resize(self, capacity: int) -> None:
        n = self.n
        matrix = np.empty((capacity, self.matrix.shape[1]), dtype=np.float32)
        seq, hard = np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=bool)
        matrix[:n], seq[:n], hard[:n] = self.matrix[:n], self.seq[:n], self.hard[:n]
        self.matrix, self.seq, self.hard = matrix, seq, hard

    def append(self, docs: Sequence[IndexedRule], vectors: np.ndarray, rows: np.ndarray, seq0: int,
               new: list[_Doc | None]) -> None:
        """Add `docs[rows]`, whose vectors are `vectors[rows]` and sequence numbers `seq0 + rows`; their
        entries go to `new[rows]`."""
        n, m = self.n, len(rows)
        if n + m > len(self.seq):
            self._resize(max(n + m + (n + m) // 8, len(self.seq) * 3 // 2 + 1))
        np.take(vectors, rows, axis=0, out=self.matrix[n:n + m])
        self.seq[n:n + m] = rows + seq0
        added = []
        for row, i in enumerate(rows.tolist(), n):
            d = new[i] = _Doc(docs[i], self, row)
            added.append(d)
        self.hard[n:n + m] = [bool(d.doc.hard) for d in added]
        self.rows += added

    def remove(self, d: _Doc) -> None:
        row, last = d.row, self.n - 1
        if row != last:  # the last row takes the removed one's place
            moved = self.rows[last]
            self.matrix[row], self.seq[row], self.hard[row] = self.matrix[last], self.seq[last], self.hard[last]
            self.rows[row], moved.row = moved, row
        self.rows.pop()
        d.block, d.row = None, -1

    def compact(self) -> None:
        """Give memory back after many removals."""
        if len(self.seq) > 64 and self.n < len(self.seq) // 4:
            self._resize(self.n + self.n // 2 + 8)


class _AgentDocs:
    def __init__(self) -> None:
        self.by_id: dict[str, _Doc] = {}
        self.repeats: dict[str, list[_Doc]] = {}  # the later documents of an id one upsert gave several times
        self.blocks: dict[_BlockKey, _Block] = {}
        self.kinds: dict[str, dict[_BlockKey, _Block]] = {}
        self.count = 0
        self.dim = 0
        self.next_seq = 0

    # -- changes ------------------------------------------------------------------------------------

    def upsert(self, docs: Sequence[IndexedRule], vectors: np.ndarray) -> None:
        if vectors.ndim != 2 or len(vectors) != len(docs):
            raise ValueError(f"{len(docs)} documents need as many vectors, got an array of shape {vectors.shape}")
        ids = [d.rule_id for d in docs]
        replaced = dict.fromkeys(ids)
        dim = vectors.shape[1]
        if self.count and dim != self.dim:  # only allowed when every indexed document is being replaced
            if self.count > sum(1 + len(self.repeats.get(i, ())) for i in replaced if i in self.by_id):
                raise ValueError(f"vectors have {dim} dimensions, the index has {self.dim}")
        if self.count:
            self.remove(replaced)
        if not self.count:
            self.dim = dim
        # Group the new documents by block, each group in upsert sequence.
        codes: dict[_BlockKey, int] = {}
        code = np.fromiter((codes.setdefault(_block_key(d), len(codes)) for d in docs), dtype=np.intp, count=len(docs))
        perm = np.argsort(code, kind="stable")
        bounds = np.flatnonzero(np.diff(code[perm])) + 1
        new: list[_Doc | None] = [None] * len(docs)
        for key, rows in zip(codes, np.split(perm, bounds) if len(docs) else []):
            block = self.blocks.get(key)
            if block is None:
                block = self.blocks[key] = _Block(key, dim)
                self.kinds.setdefault(key[0], {})[key] = block
            block.append(docs, vectors, rows, self.next_seq, new)
        if len(replaced) == len(ids):
            self.by_id.update(zip(ids, new))  # type: ignore[arg-type]
        else:
            for rule_id, d in zip(ids, new):
                assert d is not None
                if rule_id in self.by_id:
                    self.repeats.setdefault(rule_id, []).append(d)
                else:
                    self.by_id[rule_id] = d
        self.next_seq += len(docs)
        self.count += len(docs)

    def remove(self, ids: Iterable[str]) -> None:
        touched: dict[_BlockKey, _Block] = {}
        for rule_id in ids:
            first = self.by_id.pop(rule_id, None)
            for d in ([first, *self.repeats.pop(rule_id, ())] if first else ()):
                block = d.block
                assert block is not None
                block.remove(d)
                touched[block.key] = block
                self.count -= 1
        for key, block in touched.items():
            if block.n:
                block.compact()
            else:
                del self.blocks[key]
                kind = self.kinds[key[0]]
                del kind[key]
                if not kind:
                    del self.kinds[key[0]]

    # -- reading ------------------------------------------------------------------------------------

    def by_sequence(self) -> tuple[list[_Doc], np.ndarray]:
        """Every document and its vector by sequence number (as the file lists them)."""
        blocks = list(self.blocks.values())
        if not blocks:
            return [], np.zeros((0, self.dim), dtype=np.float32)
        rows = [d for b in blocks for d in b.rows]
        perm = np.argsort(np.concatenate([b.seq[:b.n] for b in blocks]), kind="stable")
        matrix = np.concatenate([b.matrix[:b.n] for b in blocks])[perm]
        return [rows[i] for i in perm], matrix

    @property
    def docs(self) -> list[IndexedRule]:
        return [d.doc for d in self.by_sequence()[0]]

    @property
    def matrix(self) -> np.ndarray:
        return self.by_sequence()[1]

    def digests(self) -> dict[str, str]:
        # Keys in the order of each id's first document, the value of its last one (as a comprehension
        # over the documents by sequence gives): the ids of one list were upserted together.
        if self.repeats:
            return {rule_id: (self.repeats[rule_id][-1] if rule_id in self.repeats else d).doc.digest
                    for rule_id, d in self.by_id.items()}
        return {rule_id: d.doc.digest for rule_id, d in self.by_id.items()}

    def blocks_for(self, scope: ScopeFilter) -> list[_Block]:
        """The blocks `in_scope` allows, GLOBAL first."""
        kind = scope.kind
        if kind == "scenario":
            return list(self.kinds.get(kind, {}).values())
        keys: list[_BlockKey] = [(kind, "GLOBAL", None)]
        keys += [(kind, "SCENARIO", s) for s in dict.fromkeys(scope.scenario_ids)]
        keys += [(kind, "STEP", s) for s in dict.fromkeys(scope.step_ids)]
        return [self.blocks[key] for key in keys if key in self.blocks]

    def search(self, scope: ScopeFilter, vector: np.ndarray, k: int) -> list[Hit]:
        blocks = self.blocks_for(scope)
        if not blocks:
            return []
        vector = np.asarray(vector, dtype=np.float32)
        if len(blocks) == 1:
            scores, seqs = blocks[0].matrix[:blocks[0].n] @ vector, blocks[0].seq[:blocks[0].n]
        else:
            scores = np.concatenate([b.matrix[:b.n] @ vector for b in blocks])
            seqs = np.concatenate([b.seq[:b.n] for b in blocks])
        n = len(scores)
        top_n = min(k, n) if k >= 0 else max(n + k, 0)  # as slicing a full ranking with [:k] would
        neg = -scores
        if top_n == 0:
            top = np.zeros(0, dtype=np.intp)
        elif top_n == n:
            top = np.lexsort((seqs, neg))
        else:
            # Everything scoring at least the top_n-th score, then ranked by (score, sequence).
            kth = neg[np.argpartition(neg, top_n - 1)[top_n - 1]]
            candidates = np.flatnonzero(~(neg > kth))
            top = candidates[np.lexsort((seqs[candidates], neg[candidates]))][:top_n]
        offsets = np.cumsum([0] + [b.n for b in blocks])

        def rule_id(i: int) -> str:
            b = int(np.searchsorted(offsets, i, side="right")) - 1
            return blocks[b].rows[i - offsets[b]].doc.rule_id

        hits = [Hit(rule_id(i), float(scores[i])) for i in top.tolist()]
        if scope.kind == "rule" and blocks[0].key == ("rule", "GLOBAL", None):
            hard = np.flatnonzero(blocks[0].hard[:blocks[0].n])  # GLOBAL block first: positions = rows
            extra = hard[~np.isin(hard, top)]
            extra = extra[np.lexsort((seqs[extra], neg[extra]))]
            hits += [Hit(blocks[0].rows[i].doc.rule_id, float(scores[i]), "always included") for i in extra.tolist()]
        return hits

    # -- the file -----------------------------------------------------------------------------------

    def meta_json(self, tenant_id: str, agent_id: str, docs: list[_Doc]) -> str:
        """json.dumps of the file's meta, from each document's JSON kept since its first save."""
        parts = []
        for d in docs:
            if d.json is None:
                d.json = json.dumps(dataclasses.asdict(d.doc))
            parts.append(d.json)
        return (f'{{"tenant_id": {json.dumps(tenant_id)}, "agent_id": {json.dumps(agent_id)}, '
                f'"docs": [{", ".join(parts)}]}}')


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
                    entry.upsert([IndexedRule(**d) for d in meta["docs"]], data["matrix"].astype(np.float32))
                    self._agents[key] = entry
        return self._agents.get(key)

    def _save(self, tenant_id: str, agent_id: str, entry: _AgentDocs) -> None:
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        docs, matrix = entry.by_sequence()
        target = self._file(tenant_id, agent_id)
        tmp = target.with_suffix(".tmp.npz")
        np.savez(tmp, matrix=matrix, meta=np.array(entry.meta_json(tenant_id, agent_id, docs)))
        os.replace(tmp, target)

    def upsert(self, tenant_id: str, agent_id: str, docs: Sequence[IndexedRule], vectors: np.ndarray) -> None:
        vectors = np.asarray(vectors, dtype=np.float32)
        with self._lock:
            entry = self._entry(tenant_id, agent_id) or self._agents.setdefault((tenant_id, agent_id), _AgentDocs())
            entry.upsert(docs, vectors)
            self._save(tenant_id, agent_id, entry)

    def delete(self, tenant_id: str, agent_id: str, ids: Sequence[str]) -> None:
        with self._lock:
            entry = self._entry(tenant_id, agent_id)
            if entry is None or not entry.count:
                return
            entry.remove(dict.fromkeys(ids))
            self._save(tenant_id, agent_id, entry)

    def digests(self, tenant_id: str, agent_id: str) -> dict[str, str]:
        with self._lock:
            entry = self._entry(tenant_id, agent_id)
            return entry.digests() if entry else {}

    def search(self, scope: ScopeFilter, vector: np.ndarray, k: int) -> list[Hit]:
        with self._lock:
            entry = self._entry(scope.tenant_id, scope.agent_id)
            if entry is None or not entry.count:
                return []
            return entry.search(scope, vector, k)


def in_scope(doc: IndexedRule, scope: ScopeFilter) -> bool:
    """Whether a search in `scope` may see `doc` (the blocks a search scores are exactly these)."""
    if doc.kind != scope.kind:
        return False
    if doc.kind == "scenario" or doc.scope == "GLOBAL":
        return True
    if doc.scope == "SCENARIO":
        return doc.scope_id in scope.scenario_ids
    if doc.scope == "STEP":
        return doc.scope_id in scope.step_ids
    return False
