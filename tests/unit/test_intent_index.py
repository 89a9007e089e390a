"""The intent scorer (focal.sensing.intents) on small synthetic vectors: no model needed."""

from __future__ import annotations

import numpy as np
import pytest

from focal.models.agent import AgentConfig, NavigationConfig, Scenario, Step
from focal.sensing import intents
from focal.sensing.intents import IntentIndex, IntentScorer, intent_index, pseudo_examples, train_head

DIM = 16


def unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


class TableEmbedder:
    """Vectors from a table; texts not in it get a fixed pseudo-random unit vector. Counts texts embedded."""

    dimension = DIM

    def __init__(self, table: dict[str, np.ndarray]):
        self.table = table
        self.embedded: list[str] = []

    def embed(self, texts):
        self.embedded.extend(texts)
        out = []
        for t in texts:
            if t in self.table:
                out.append(self.table[t])
            else:
                seed = sum(t.encode()) * 7919 + len(t)
                out.append(unit(np.random.default_rng(seed).normal(size=DIM)))
        return np.stack(out).astype(np.float32) if out else np.zeros((0, DIM), np.float32)


def agent_of(examples: dict[str, list[str]], head_weight: float | None = None, agent_id: str = "a") -> AgentConfig:
    nav = NavigationConfig() if head_weight is None else NavigationConfig(intent_head_weight=head_weight)
    return AgentConfig(id=agent_id, name=agent_id, navigation=nav, scenarios=[
        Scenario(id=sid, name=f"{sid} scenario", intent_label=f"{sid}_intent", entry_examples=texts,
                 steps=[Step(id="s")], entry_step_id="s")
        for sid, texts in examples.items()
    ])


def interleaved_classes():
    """Class `b` owns the region around e0 with many examples; class `a` lives around e1 but has one
    stray example inside b's region. A query in b's region is nearest to a's stray example."""
    rng = np.random.default_rng(3)
    e0, e1 = np.eye(DIM)[0], np.eye(DIM)[1]
    table: dict[str, np.ndarray] = {}
    a_texts, b_texts = [], []
    for i in range(12):
        t = f"b{i}"
        table[t] = unit(e0 + 0.35 * rng.normal(size=DIM))
        b_texts.append(t)
    for i in range(12):
        t = f"a{i}"
        table[t] = unit(e1 + 0.35 * rng.normal(size=DIM))
        a_texts.append(t)
    query = unit(e0 + 0.3 * rng.normal(size=DIM))
    # a's stray example: a little closer to the query (cosine +0.03) than b's nearest example
    target = max(float(table[t] @ query) for t in b_texts) + 0.03
    side = rng.normal(size=DIM)
    side = unit(side - (side @ query) * query)
    table["a_stray"] = unit(target * query + np.sqrt(1 - target**2) * side)
    a_texts.append("a_stray")
    return table, {"a": a_texts, "b": b_texts}, query


def test_head_separates_classes_the_nearest_example_rule_confuses():
    table, examples, query = interleaved_classes()
    embedder = TableEmbedder(table)
    plain = IntentIndex(agent_of(examples, head_weight=0.0), embedder).scores(query)
    assert plain[0].scenario_id == "a"  # the stray example wins the nearest-example rule
    combined = IntentIndex(agent_of(examples), embedder).scores(query)
    assert combined[0].scenario_id == "b"
    # and b's score is its own nearest-example cosine: the scale the thresholds are written for
    b_max = max(float(table[t] @ query) for t in examples["b"])
    assert combined[0].score == pytest.approx(b_max, abs=1e-5)


def test_head_weight_zero_is_exactly_the_nearest_example_rule():
    table, examples, query = interleaved_classes()
    index = IntentIndex(agent_of(examples, head_weight=0.0), TableEmbedder(table))
    assert index.scorer.head is None
    got = {s.scenario_id: s.score for s in index.scores(query)}
    for sid, texts in examples.items():
        assert got[sid] == pytest.approx(max(float(table[t] @ query) for t in texts), abs=1e-6)


def test_scores_keep_the_cosine_scale_and_rank_best_first():
    rng = np.random.default_rng(0)
    centers = {sid: unit(rng.normal(size=DIM)) for sid in ("refund", "status", "address")}
    table, examples = {}, {}
    for sid, c in centers.items():
        examples[sid] = []
        for i in range(8):
            t = f"{sid}-{i}"
            table[t] = unit(c + 0.5 * rng.normal(size=DIM))
            examples[sid].append(t)
    index = IntentIndex(agent_of(examples), TableEmbedder(table))
    assert index.scorer.head is not None
    for _ in range(50):
        q = unit(rng.normal(size=DIM))
        ranked = index.scores(q)
        values = [s.score for s in ranked]
        assert values == sorted(values, reverse=True)
        assert all(-1.0 <= v <= 1.0 for v in values)
        top = ranked[0]
        nearest_top = max(float(table[t] @ q) for t in examples[top.scenario_id])
        assert top.score == pytest.approx(nearest_top, abs=1e-5)  # the winner keeps its cosine
        assert top.label == f"{top.scenario_id}_intent"
        # every other scenario is pushed down, never above its own nearest-example cosine by more than
        # the winner's: it can only lose rank, not gain scale
        for s in ranked[1:]:
            assert s.score <= top.score + 1e-6
    # an exact entry example scores (about) 1 for its scenario
    exact = index.scores(table["status-3"])
    assert exact[0].scenario_id == "status" and exact[0].score == pytest.approx(1.0, abs=1e-5)


def test_batch_scores_agree_with_the_turn_time_scores():
    table, examples, query = interleaved_classes()
    index = IntentIndex(agent_of(examples), TableEmbedder(table))
    queries = np.stack([query, table["a3"], table["b5"]])
    matrix = index.score_matrix(queries)
    for row, q in zip(matrix, queries, strict=True):
        ranked = index.scores(q)
        by_id = {s.scenario_id: s.score for s in ranked}
        for j, (sid, _) in enumerate(index.labels):
            assert by_id[sid] == pytest.approx(float(row[j]), abs=1e-6)


def test_a_scenario_without_examples_never_wins_and_a_single_scenario_needs_no_head():
    table, examples, query = interleaved_classes()
    index = IntentIndex(agent_of({**examples, "empty": []}), TableEmbedder(table))
    ranked = index.scores(query)
    assert ranked[-1].scenario_id == "empty" and ranked[-1].score == -1.0
    single = IntentIndex(agent_of({"b": examples["b"]}), TableEmbedder(table))
    assert single.scorer.head is None
    assert single.scores(query)[0].score == pytest.approx(max(float(table[t] @ query) for t in examples["b"]), abs=1e-6)
    assert IntentIndex(agent_of({}), TableEmbedder(table)).scores(query) == []


def test_pseudo_examples_are_the_scenario_name_and_label_as_phrases():
    s = Scenario(id="x", name="Card arrival", intent_label="card_arrival", steps=[Step(id="s")], entry_step_id="s")
    assert pseudo_examples(s) == ["card arrival"]
    s = Scenario(id="refund", name="Refund an order", intent_label="refund_request", steps=[Step(id="s")], entry_step_id="s")
    assert pseudo_examples(s) == ["refund an order", "refund request"]


def test_train_head_fits_separable_data_deterministically():
    rng = np.random.default_rng(1)
    centers = unit(rng.normal(size=(5, DIM)))
    y = np.repeat(np.arange(5), 6)
    x = unit(centers[y] + 0.3 * rng.normal(size=(30, DIM)))
    w1, b1 = train_head(x, y, 5)
    w2, b2 = train_head(x, y, 5)
    assert np.array_equal(w1, w2) and np.array_equal(b1, b2)
    assert ((x @ w1 + b1).argmax(axis=1) == y).mean() == 1.0


def test_scorer_reduces_over_unsorted_owners():
    vectors = unit(np.eye(DIM)[[0, 1, 2, 3]])
    scorer = IntentScorer(vectors, np.array([1, 0, 1, 0]), 2, head_weight=0.0)
    got = scorer.score_matrix(unit(np.eye(DIM)[[2]]))[0]
    assert got[1] == pytest.approx(1.0) and got[0] == pytest.approx(0.0)


def test_index_is_cached_by_content_digest(monkeypatch):
    monkeypatch.setattr(intents, "_cache", {})
    table, examples, _ = interleaved_classes()
    embedder = TableEmbedder(table)
    first = intent_index("t1", agent_of(examples), embedder)
    embedded = len(embedder.embedded)
    assert intent_index("t1", agent_of(examples), embedder) is first  # an equal agent (a new object) hits the cache
    assert len(embedder.embedded) == embedded
    changed = {**examples, "b": examples["b"][:-1]}
    assert intent_index("t1", agent_of(changed), embedder) is not first  # other examples: rebuilt
    assert intent_index("t1", agent_of(examples, head_weight=0.0), embedder) is not first  # other head weight
    assert intent_index("t2", agent_of(examples), embedder) is not first  # tenants never share
