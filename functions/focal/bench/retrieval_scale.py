"""`focal bench retrieval --rules 10000,100000`: the rule index at scale.

Synthetic rules (random unit vectors, embedding 100k texts with MiniLM would take minutes): ingest
throughput, p50/p95 of a filtered search in a turn's scope, index memory; MiniLM throughput on a
sample of synthetic rule texts. Then a real large agent (focal.bench.retrieval_large): the retail example's file
with synthetic rules added, read by the product's loader, its labelled messages read as turns, at several agent
sizes and in indexes of N rules: recall and precision at the agent's threshold and the p50/p95 of a turn's
retrieval. No customer text is printed.
"""

from __future__ import annotations

import gc
import os
import time
import tracemalloc
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from focal.bench.retrieval import TENANT
from focal.bench.retrieval_large import AT_LIMIT, large_lines
from focal.ports import Embedder, IndexedRule, ScopeFilter
from focal.retrieval.rules import EMBED_BATCH

SCENARIOS, STEPS, GLOBAL_SHARE, GLOBAL_HARD = 50, 5, 0.2, 5
DIM = 384


def synthetic_rules(n: int, rng: np.random.Generator) -> list[IndexedRule]:
    """~20 % GLOBAL (a handful of them hard), the rest half SCENARIO, half STEP over 50 scenarios × 5 steps."""
    docs: list[IndexedRule] = []
    hard = 0
    for i in range(n):
        if rng.random() < GLOBAL_SHARE:
            docs.append(IndexedRule(f"g{i}", "GLOBAL", None, f"rule {i}", hard=hard < GLOBAL_HARD))
            hard += 1
            continue
        scenario = f"s{rng.integers(SCENARIOS)}"
        if rng.random() < 0.5:
            docs.append(IndexedRule(f"r{i}", "SCENARIO", scenario, f"rule {i}"))
        else:
            docs.append(IndexedRule(f"r{i}", "STEP", f"{scenario}.st{rng.integers(STEPS)}", f"rule {i}"))
    return docs


def unit_vectors(n: int, rng: np.random.Generator) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # not Linux
        return 0


@dataclass
class ScaleRow:
    n: int
    bulk_docs_s: float
    batched_docs_s: float | None  # batches of EMBED_BATCH, as sync_index upserts; None above the cap
    one_batch_ms: float  # one more EMBED_BATCH upsert into the full index (a config change)
    p50_ms: float
    p95_ms: float
    scope_docs: float  # mean documents a query's scope allows
    matrix_mb: float
    traced_mb: float
    rss_mb: float


BATCHED_CAP = 20_000  # batched ingest grows quadratically (vstack per upsert): measured up to this size


def scale_row(n: int, queries: int = 200, k: int = 10, seed: int = 7) -> ScaleRow:
    from focal.adapters.numpy_index import NumpyRuleIndex

    rng = np.random.default_rng(seed)
    vectors = unit_vectors(n, rng)

    # Memory: documents + index built under tracemalloc (one upsert), then the caller's vectors dropped.
    gc.collect()
    rss0 = _rss_bytes()
    tracemalloc.start()
    docs = synthetic_rules(n, rng)
    index = NumpyRuleIndex()
    index.upsert(TENANT, "synthetic", docs, vectors)
    traced = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    rss = _rss_bytes() - rss0
    matrix_bytes = index._agents[(TENANT, "synthetic")].matrix.nbytes  # the adapter keeps one matrix per agent

    # Ingest: vectors precomputed, timed without tracemalloc.
    timed = NumpyRuleIndex()
    t0 = time.perf_counter()
    timed.upsert(TENANT, "a", docs, vectors)
    bulk = n / (time.perf_counter() - t0)
    del timed
    batched = None
    if n <= BATCHED_CAP:
        timed = NumpyRuleIndex()
        t0 = time.perf_counter()
        for start in range(0, n, EMBED_BATCH):
            timed.upsert(TENANT, "a", docs[start:start + EMBED_BATCH], vectors[start:start + EMBED_BATCH])
        batched = n / (time.perf_counter() - t0)
        del timed
    extra = synthetic_rules(EMBED_BATCH, rng)
    extra = [IndexedRule(f"new{i}", d.scope, d.scope_id, d.text, hard=False) for i, d in enumerate(extra)]
    t0 = time.perf_counter()
    index.upsert(TENANT, "synthetic", extra, unit_vectors(EMBED_BATCH, rng))
    one_batch_ms = (time.perf_counter() - t0) * 1000
    index.delete(TENANT, "synthetic", [d.rule_id for d in extra])

    # Query: a turn's scope, GLOBAL + one scenario + one of its steps, k = 10.
    scopes = []
    for _ in range(queries):
        s = int(rng.integers(SCENARIOS))
        scopes.append(ScopeFilter(TENANT, "synthetic", (f"s{s}",), (f"s{s}.st{int(rng.integers(STEPS))}",)))
    qv = unit_vectors(queries, rng)
    for i in range(min(5, queries)):  # warm-up
        index.search(scopes[i], qv[i], k)
    times = []
    for i in range(queries):
        t0 = time.perf_counter()
        index.search(scopes[i], qv[i], k)
        times.append((time.perf_counter() - t0) * 1000)
    globals_ = sum(1 for d in docs if d.scope == "GLOBAL")
    scope_docs = globals_ + (n - globals_) / 2 / SCENARIOS + (n - globals_) / 2 / (SCENARIOS * STEPS)
    return ScaleRow(n, bulk, batched, one_batch_ms, float(np.percentile(times, 50)), float(np.percentile(times, 95)),
                    scope_docs, matrix_bytes / 2**20, traced / 2**20, rss / 2**20)


def synthetic_texts(n: int, seed: int = 11) -> list[str]:
    """Rule-like condition texts of varied length (no real customer text)."""
    rng = np.random.default_rng(seed)
    who = ["The customer", "A shopper", "The caller", "The user", "A Premium member"]
    verb = ["asks about", "complains about", "wants to know", "is unhappy with", "requests information on",
            "mentions", "asks whether we offer"]
    topic = ["gift wrapping", "a damaged product", "loyalty points", "an invoice copy", "store pickup",
             "a missing document", "the size guide", "a late reply", "changing the payment method",
             "an expired coupon", "bulk discounts", "international fees", "a product recall",
             "assembly instructions", "a double charge", "cancelling a subscription", "the student discount"]
    tail = ["", "", " for a purchase made last month", " after the due date", " on the mobile app",
            " and wants a quick answer", " while a claim is already in progress",
            " and says it is urgent because it was a birthday present"]
    return [f"{rng.choice(who)} {rng.choice(verb)} {rng.choice(topic)}{rng.choice(tail)} (#{i})" for i in range(n)]


def embedding_throughput(embedder: Embedder, n: int = 500, singles: int = 50) -> str:
    texts = synthetic_texts(n)
    clear = getattr(embedder, "clear_cache", None)
    embedder.embed(["warm-up sentence"])
    if clear:
        clear()
    t0 = time.perf_counter()
    embedder.embed(texts)  # the adapter sorts by length and batches (32)
    batched = n / (time.perf_counter() - t0)
    if clear:
        clear()
    one = []
    for text in texts[:singles]:
        t0 = time.perf_counter()
        embedder.embed([text])
        one.append((time.perf_counter() - t0) * 1000)
    mean_words = np.mean([len(t.split()) for t in texts])
    return (f"MiniLM embedding: {batched:.0f} texts/s on {n} synthetic rule texts (mean {mean_words:.1f} words, "
            f"length-sorted batches) → 100k rules ≈ {100_000 / batched / 60:.1f} min; one at a time p50 "
            f"{np.percentile(one, 50):.1f} ms, p95 {np.percentile(one, 95):.1f} ms")


def scale(sizes: Sequence[int], queries: int = 200, k: int = 10, embed_sample: int = 500,
          embedder: Embedder | None = None, agent_sizes: Sequence[int] | None = (150, 500, AT_LIMIT)) -> str:
    """The index table at each of `sizes`, MiniLM's throughput, and (unless `agent_sizes` is None) a real large agent
    at those agent sizes and in indexes of `sizes` rules (focal.bench.retrieval_large)."""
    lines = [
        f"focal bench retrieval --rules: numpy index, random unit vectors ({DIM}-d), {int(GLOBAL_SHARE * 100)} % GLOBAL"
        f" ({GLOBAL_HARD} hard), the rest over {SCENARIOS} scenarios × {STEPS} steps;"
        f" query = GLOBAL + 1 scenario + 1 step, k={k}, {queries} queries",
        "",
        f"{'rules':>8}{'ingest bulk':>13}{f'ingest /{EMBED_BATCH}':>12}{f'+{EMBED_BATCH} ms':>9}{'p50 ms':>9}"
        f"{'p95 ms':>9}{'in scope':>10}{'matrix MB':>11}{'traced MB':>11}{'RSS Δ MB':>10}",
    ]
    for n in sizes:
        row = scale_row(n, queries, k)
        batched = f"{row.batched_docs_s:,.0f}" if row.batched_docs_s is not None else "-"
        lines.append(f"{n:>8,}{row.bulk_docs_s:>13,.0f}{batched:>12}{row.one_batch_ms:>9.1f}{row.p50_ms:>9.2f}"
                     f"{row.p95_ms:>9.2f}{row.scope_docs:>10,.0f}{row.matrix_mb:>11.1f}{row.traced_mb:>11.1f}"
                     f"{row.rss_mb:>10.1f}")
    lines += [
        f"ingest in docs/s: 'bulk' = one upsert of all documents; '/{EMBED_BATCH}' = upserts of {EMBED_BATCH} as"
        f" sync_index does (each re-stacks the matrix, so it is quadratic; measured up to {BATCHED_CAP:,});",
        f"'+{EMBED_BATCH} ms' = one more {EMBED_BATCH}-document upsert into the full index (a config change);"
        " traced = documents + matrix under tracemalloc; RSS Δ = resident growth while building them",
    ]
    if embedder is None:
        from focal.adapters.onnx_embedder import shared_embedder

        embedder = shared_embedder()
    if embed_sample:
        lines += ["", embedding_throughput(embedder, embed_sample)]
    if agent_sizes is not None:
        lines += ["", *large_lines(sizes, agent_sizes, embedder)]
    return "\n".join(lines)

