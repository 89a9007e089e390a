"""The embedded index (per-scope blocks, id → row map) against a brute-force reference.

The reference is the straightforward implementation the index replaced: one documents list (a replaced
document goes to the end), one matrix, an `in_scope` test per document, the whole filtered set ranked
— with ties broken by a stable sort, i.e. by position in the list. That is the index's documented
order: score, highest first, then the document indexed (or last replaced) earlier.

The main comparison uses small integer vectors, so every dot product is exact whatever the summation
order: ids, scores, order and reasons must be equal, and the many equal scores exercise the ties.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import threading

import numpy as np
import pytest

from focal.adapters.numpy_index import NumpyRuleIndex, in_scope
from focal.ports import Hit, IndexedRule, ScopeFilter


class BruteForceIndex:
    """The reference: one list of documents and one matrix per (tenant, agent); filter, then rank all."""

    def __init__(self) -> None:
        self.agents: dict[tuple[str, str], tuple[list[IndexedRule], np.ndarray]] = {}

    def upsert(self, tenant_id, agent_id, docs, vectors):
        vectors = np.asarray(vectors, dtype=np.float32)
        old_docs, old = self.agents.get((tenant_id, agent_id), ([], np.zeros((0, vectors.shape[1]), np.float32)))
        replaced = {d.rule_id for d in docs}
        keep = [i for i, d in enumerate(old_docs) if d.rule_id not in replaced]
        new_docs = [old_docs[i] for i in keep] + list(docs)
        self.agents[(tenant_id, agent_id)] = (new_docs, np.vstack([old[keep], vectors]) if keep else vectors.copy())

    def delete(self, tenant_id, agent_id, ids):
        if (tenant_id, agent_id) not in self.agents:
            return
        docs, matrix = self.agents[(tenant_id, agent_id)]
        keep = [i for i, d in enumerate(docs) if d.rule_id not in set(ids)]
        self.agents[(tenant_id, agent_id)] = ([docs[i] for i in keep], matrix[keep])

    def digests(self, tenant_id, agent_id):
        return {d.rule_id: d.digest for d in self.agents.get((tenant_id, agent_id), ([], None))[0]}

    def search(self, scope, vector, k):
        docs, matrix = self.agents.get((scope.tenant_id, scope.agent_id), ([], None))
        idx = [i for i, d in enumerate(docs) if in_scope(d, scope)]
        if not idx:
            return []
        scores = matrix[idx] @ np.asarray(vector, dtype=np.float32)
        order = np.argsort(-scores, kind="stable")
        hits = [Hit(docs[idx[i]].rule_id, float(scores[i])) for i in order[:k]]
        if scope.kind == "rule":
            hits += [Hit(docs[idx[i]].rule_id, float(scores[i]), "always included")
                     for i in order[k:] if docs[idx[i]].hard and docs[idx[i]].scope == "GLOBAL"]
        return hits

    def file_content(self, tenant_id, agent_id):
        """What the index's file held before the blocks: meta JSON and matrix, in list order."""
        docs, matrix = self.agents[(tenant_id, agent_id)]
        meta = {"tenant_id": tenant_id, "agent_id": agent_id, "docs": [dataclasses.asdict(d) for d in docs]}
        return json.dumps(meta), matrix


SCENARIOS = [f"s{i}" for i in range(6)]
STEPS = [f"{s}.st{j}" for s in SCENARIOS for j in range(3)]
KINDS = ["rule", "rule", "rule", "scenario", "other"]


def random_doc(rng: np.random.Generator, n_ids: int) -> IndexedRule:
    rule_id = f"d{int(rng.integers(n_ids))}"
    kind = KINDS[int(rng.integers(len(KINDS)))]
    r = rng.random()
    if r < 0.35:  # GLOBAL, now and then with a stray scope_id (still GLOBAL)
        scope, scope_id = "GLOBAL", (None if rng.random() < 0.9 else SCENARIOS[0])
    elif r < 0.65:
        scope, scope_id = "SCENARIO", SCENARIOS[int(rng.integers(len(SCENARIOS)))]
    elif r < 0.95:
        scope, scope_id = "STEP", STEPS[int(rng.integers(len(STEPS)))]
    else:  # a scope no rule search admits
        scope, scope_id = "TENANT", None
    return IndexedRule(rule_id, scope, scope_id, f"text {rule_id} {r:.3f}", kind=kind, hard=bool(rng.random() < 0.3),
                       digest=f"{rng.random():.6f}", extra={"n": int(rng.integers(9))})


def integer_vectors(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    return rng.integers(-3, 4, size=(n, dim)).astype(np.float32)  # exact dot products, plenty of ties


def random_scope(rng: np.random.Generator, tenant: str, agent: str) -> ScopeFilter:
    scenarios = tuple(SCENARIOS[int(i)] for i in rng.integers(len(SCENARIOS), size=int(rng.integers(0, 4))))
    steps = tuple(STEPS[int(i)] for i in rng.integers(len(STEPS), size=int(rng.integers(0, 4))))
    if rng.random() < 0.1:
        scenarios += ("unknown",)
    kind = ["rule", "rule", "rule", "scenario", "other"][int(rng.integers(5))]
    return ScopeFilter(tenant, agent, scenarios, steps, kind)  # repeats in scenarios/steps on purpose


def assert_same(index: NumpyRuleIndex, ref: BruteForceIndex, rng: np.random.Generator, keys, dim: int,
                queries: int = 6) -> None:
    for tenant, agent in keys:
        assert list(index.digests(tenant, agent).items()) == list(ref.digests(tenant, agent).items())
        for _ in range(queries):
            scope = random_scope(rng, tenant, agent)
            vector = integer_vectors(rng, 1, dim)[0]
            for k in (0, 1, 3, 10, 50, 10_000, -1, -4):
                assert index.search(scope, vector, k) == ref.search(scope, vector, k), (scope, k)


KEYS = [("t1", "a"), ("t1", "b"), ("t2", "a")]


@pytest.mark.parametrize("seed", range(4))
def test_same_results_as_brute_force_through_upserts_replacements_and_deletes(seed):
    rng = np.random.default_rng(seed)
    dim, n_ids = 8, 400
    index, ref = NumpyRuleIndex(), BruteForceIndex()
    for step in range(120):
        tenant, agent = KEYS[int(rng.integers(len(KEYS)))]
        if rng.random() < 0.7 or not ref.digests(tenant, agent):
            size = int(rng.choice([1, 5, 30, 120]))
            docs = list({d.rule_id: d for d in (random_doc(rng, n_ids) for _ in range(size))}.values())
            vectors = integer_vectors(rng, len(docs), dim)
            index.upsert(tenant, agent, docs, vectors)
            ref.upsert(tenant, agent, docs, vectors)
        else:
            known = list(ref.digests(tenant, agent))
            ids = [known[int(i)] for i in rng.integers(len(known), size=int(rng.integers(1, 40)))]
            ids += ["never-indexed"]
            index.delete(tenant, agent, ids)
            ref.delete(tenant, agent, ids)
        if step % 4 == 0:
            assert_same(index, ref, rng, KEYS, dim)
    assert_same(index, ref, rng, KEYS, dim, queries=20)
    # Delete everything, then a fresh start.
    for tenant, agent in KEYS:
        ids = list(ref.digests(tenant, agent))
        index.delete(tenant, agent, ids)
        ref.delete(tenant, agent, ids)
    assert_same(index, ref, rng, KEYS, dim)
    docs = [random_doc(rng, 10_000) for _ in range(50)]
    docs = list({d.rule_id: d for d in docs}.values())
    vectors = integer_vectors(rng, len(docs), dim)
    index.upsert("t1", "a", docs, vectors)
    ref.upsert("t1", "a", docs, vectors)
    assert_same(index, ref, rng, KEYS, dim)


def test_ties_go_to_the_document_indexed_earlier_and_a_replacement_goes_last():
    index = NumpyRuleIndex()
    docs = [IndexedRule(f"r{i}", scope, sid, "x") for i, (scope, sid) in
            enumerate([("STEP", "s.a"), ("GLOBAL", None), ("SCENARIO", "s"), ("GLOBAL", None)])]
    index.upsert("t", "a", docs, np.ones((4, 3), np.float32))
    scope = ScopeFilter("t", "a", ("s",), ("s.a",))
    assert [h.rule_id for h in index.search(scope, np.ones(3), 10)] == ["r0", "r1", "r2", "r3"]
    index.upsert("t", "a", [docs[1]], np.ones((1, 3), np.float32))  # replaced: now the newest
    assert [h.rule_id for h in index.search(scope, np.ones(3), 10)] == ["r0", "r2", "r3", "r1"]
    assert list(index.digests("t", "a")) == ["r0", "r2", "r3", "r1"]


def test_global_hard_constraints_outside_the_top_k_keep_their_order_and_scores():
    index = NumpyRuleIndex()
    docs = [IndexedRule(f"h{i}", "GLOBAL", None, "x", hard=True) for i in range(4)]
    docs += [IndexedRule(f"s{i}", "SCENARIO", "s", "x", hard=True) for i in range(4)]  # hard, not GLOBAL
    vectors = np.array([[0.1], [0.4], [0.2], [0.4], [0.9], [0.8], [0.7], [0.6]], np.float32)
    index.upsert("t", "a", docs, vectors)
    hits = index.search(ScopeFilter("t", "a", ("s",)), np.ones(1), 2)
    assert [(h.rule_id, h.reason) for h in hits] == [
        ("s0", "similarity"), ("s1", "similarity"),
        ("h1", "always included"), ("h3", "always included"), ("h2", "always included"), ("h0", "always included")]
    assert [h.score for h in hits[2:]] == pytest.approx([0.4, 0.4, 0.2, 0.1])


def test_same_results_on_float_vectors():
    """Real-valued unit vectors: same ids, order and reasons; scores equal to float32 rounding."""
    rng = np.random.default_rng(11)
    dim = 64
    index, ref = NumpyRuleIndex(), BruteForceIndex()
    for _ in range(10):
        docs = list({d.rule_id: d for d in (random_doc(rng, 3000) for _ in range(300))}.values())
        vectors = rng.standard_normal((len(docs), dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        index.upsert("t", "a", docs, vectors)
        ref.upsert("t", "a", docs, vectors)
        gone = [f"d{int(i)}" for i in rng.integers(3000, size=50)]
        index.delete("t", "a", gone)
        ref.delete("t", "a", gone)
    for _ in range(60):
        scope = random_scope(rng, "t", "a")
        q = rng.standard_normal(dim).astype(np.float32)
        q /= np.linalg.norm(q)
        for k in (1, 10):
            a, b = index.search(scope, q, k), ref.search(scope, q, k)
            assert [(h.rule_id, h.reason) for h in a] == [(h.rule_id, h.reason) for h in b]
            assert np.allclose([h.score for h in a], [h.score for h in b], atol=1e-6)


def test_a_repeated_id_in_one_upsert_behaves_as_before():
    index, ref = NumpyRuleIndex(), BruteForceIndex()
    docs = [IndexedRule("x", "GLOBAL", None, "one", digest="1"), IndexedRule("y", "GLOBAL", None, "y", digest="y"),
            IndexedRule("x", "GLOBAL", None, "two", digest="2", hard=True)]
    vectors = np.array([[1, 0], [0, 1], [1, 1]], np.float32)
    for idx in (index, ref):
        idx.upsert("t", "a", docs, vectors)
    scope = ScopeFilter("t", "a")
    assert list(index.digests("t", "a").items()) == list(ref.digests("t", "a").items()) == [("x", "2"), ("y", "y")]
    for k in (0, 1, 2, 5):
        assert index.search(scope, np.array([1, 0.5]), k) == ref.search(scope, np.array([1, 0.5]), k)
    for idx in (index, ref):
        idx.upsert("t", "a", [IndexedRule("x", "STEP", "s.a", "three", digest="3")], np.ones((1, 2), np.float32))
    assert list(index.digests("t", "a").items()) == list(ref.digests("t", "a").items())
    assert index.search(scope, np.array([1, 0.5]), 5) == ref.search(scope, np.array([1, 0.5]), 5)


def test_the_dimension_may_change_only_when_every_document_is_replaced():
    index = NumpyRuleIndex()
    index.upsert("t", "a", [IndexedRule("a", "GLOBAL", None, "a"), IndexedRule("b", "GLOBAL", None, "b")],
                 np.ones((2, 3), np.float32))
    with pytest.raises(ValueError):
        index.upsert("t", "a", [IndexedRule("a", "GLOBAL", None, "a")], np.ones((1, 4), np.float32))
    assert set(index.digests("t", "a")) == {"a", "b"}  # unchanged by the failed upsert
    index.upsert("t", "a", [IndexedRule("a", "GLOBAL", None, "a"), IndexedRule("b", "GLOBAL", None, "b")],
                 np.ones((2, 4), np.float32))
    assert [h.score for h in index.search(ScopeFilter("t", "a"), np.ones(4), 5)] == [4.0, 4.0]


def stored(path):
    with np.load(path, allow_pickle=False) as data:
        return str(data["meta"]), data["matrix"].copy()


def test_the_file_is_the_same_as_before_and_reloads_lazily(tmp_path):
    rng = np.random.default_rng(5)
    dim = 8
    folder = tmp_path / "index"
    index, ref = NumpyRuleIndex(folder), BruteForceIndex()
    for _ in range(15):
        tenant, agent = KEYS[int(rng.integers(2))]
        docs = list({d.rule_id: d for d in (random_doc(rng, 200) for _ in range(40))}.values())
        vectors = integer_vectors(rng, len(docs), dim)
        index.upsert(tenant, agent, docs, vectors)
        ref.upsert(tenant, agent, docs, vectors)
        gone = [f"d{int(i)}" for i in rng.integers(200, size=10)]
        index.delete(tenant, agent, gone)
        ref.delete(tenant, agent, gone)
        meta, matrix = stored(index._file(tenant, agent))  # written after every change
        ref_meta, ref_matrix = ref.file_content(tenant, agent)
        assert meta == ref_meta and np.array_equal(matrix, ref_matrix)
    assert not list(folder.glob("*.tmp.npz"))

    reopened = NumpyRuleIndex(folder)
    assert reopened._agents == {}  # nothing read until used
    assert_same(reopened, ref, rng, KEYS[:2], dim, queries=10)
    assert set(reopened._agents) == set(KEYS[:2])


def test_a_file_written_by_the_list_layout_loads(tmp_path):
    ref = BruteForceIndex()
    rng = np.random.default_rng(9)
    docs = list({d.rule_id: d for d in (random_doc(rng, 100) for _ in range(60))}.values())
    ref.upsert("t1", "a", docs, integer_vectors(rng, len(docs), 8))
    index = NumpyRuleIndex(tmp_path)
    meta, matrix = ref.file_content("t1", "a")
    tmp_path.mkdir(exist_ok=True)
    np.savez(index._file("t1", "a"), matrix=matrix, meta=np.array(meta))
    assert_same(index, ref, rng, [("t1", "a")], 8, queries=10)


def test_a_file_for_another_tenant_is_ignored(tmp_path):
    index = NumpyRuleIndex(tmp_path)
    index.upsert("t1", "a", [IndexedRule("x", "GLOBAL", None, "x", digest="d")], np.ones((1, 2), np.float32))
    shutil.copy(index._file("t1", "a"), index._file("t2", "a"))  # misplaced under another key's name
    fresh = NumpyRuleIndex(tmp_path)
    assert fresh.digests("t2", "a") == {}
    assert fresh.search(ScopeFilter("t2", "a"), np.ones(2), 3) == []
    assert fresh.digests("t1", "a") == {"x": "d"}
    fresh.delete("t2", "a", ["x"])  # nothing indexed there: no-op, the misplaced file stays as it was
    assert os.path.exists(index._file("t2", "a"))


def test_concurrent_upserts_deletes_and_searches_stay_consistent():
    index = NumpyRuleIndex()
    dim, errors = 16, []
    rng = np.random.default_rng(3)
    base = [IndexedRule(f"g{i}", "GLOBAL", None, "g", hard=i % 7 == 0) for i in range(500)]
    index.upsert("t", "a", base, rng.standard_normal((500, dim)).astype(np.float32))

    def writer(seed):
        r = np.random.default_rng(seed)
        try:
            for _ in range(80):
                docs = [IndexedRule(f"w{seed}-{int(i)}", "SCENARIO", f"s{int(i) % 3}", "w") for i in r.integers(300, size=20)]
                docs = list({d.rule_id: d for d in docs}.values())
                index.upsert("t", "a", docs, r.standard_normal((len(docs), dim)).astype(np.float32))
                index.delete("t", "a", [f"w{seed}-{int(i)}" for i in r.integers(300, size=10)])
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    def reader(seed):
        r = np.random.default_rng(seed)
        try:
            for _ in range(200):
                hits = index.search(ScopeFilter("t", "a", ("s0", "s1")), r.standard_normal(dim).astype(np.float32), 10)
                similar = [h for h in hits if h.reason == "similarity"]
                assert len(similar) == 10
                assert [h.score for h in similar] == sorted((h.score for h in similar), reverse=True)
                assert len({h.rule_id for h in hits}) == len(hits)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(s,)) for s in range(3)]
    threads += [threading.Thread(target=reader, args=(10 + s,)) for s in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
