"""`focal bench retrieval`: how well and how fast the rule index retrieves.

Labelled mode (`focal bench retrieval AGENT [--cases FILE] [--k 1,3,5,10]`): every case of a
labelled set (default: retrieval.yaml beside the agent) goes through the code path a turn uses —
`sync_index` into the embedded index, the message embedded once as the sensor does, the scope built
by `turn_scope` from a session in the case's scenario/step, then `RuleIndex.search`. It prints
recall@k (expected rule ids found among the top k similarity hits; "always included" hits do not
count) and the trade-off of the rule filter's threshold (`retrieval.rule_match_threshold`) on the
candidates a turn gets (top_k plus always included): expected vs unexpected rules above it, expected
ones below it, at the agent's threshold and around it.

Scale mode (`--rules 1000,10000,100000`): the embedded numpy index with synthetic rules and random
unit vectors (embedding 100k texts with MiniLM would take minutes): ingest throughput, p50/p95 of a
filtered search in a turn's scope, index memory; plus MiniLM throughput on a small sample of
synthetic rule texts. No customer text is involved; only ids and figures are printed.
"""

from __future__ import annotations

import gc
import os
import time
import tracemalloc
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from focal.models.agent import AgentConfig, Scope
from focal.models.session import Session
from focal.ports import Embedder, Hit, IndexedRule, RuleIndex, ScopeFilter
from focal.retrieval.rules import EMBED_BATCH, indexed_scope_id, sync_index, turn_scope

TENANT = "bench"
DEFAULT_KS = (1, 3, 5, 10)


# --------------------------------------------------------------------------- labelled set

@dataclass(frozen=True)
class Case:
    message: str
    scenario: str | None
    step: str | None
    expected: tuple[str, ...]


def load_cases(path: str | Path) -> list[Case]:
    """Parse a labelled set: a list of cases, or a mapping with `cases:` (and an optional `agent:`)."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    items = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError(f"{path}: expected a list of cases (or a mapping with 'cases:')")
    cases = []
    for i, item in enumerate(items):
        where = f"{path}: cases[{i}]"
        if not isinstance(item, dict):
            raise ValueError(f"{where} must be a mapping")
        unknown = set(item) - {"message", "scenario", "step", "expected"}
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}")
        message, expected = item.get("message"), item.get("expected")
        if not isinstance(message, str) or not message.strip():
            raise ValueError(f"{where}.message must be a non-empty string (quote yes/no/on/off)")
        if not isinstance(expected, list) or not all(isinstance(r, str) for r in expected):
            raise ValueError(f"{where}.expected must be a list of rule ids ([] for none)")
        for key in ("scenario", "step"):
            if item.get(key) is not None and not isinstance(item[key], str):
                raise ValueError(f"{where}.{key} must be a string or null")
        cases.append(Case(message, item.get("scenario"), item.get("step"), tuple(expected)))
    return cases


def case_problems(agent: AgentConfig, cases: Sequence[Case]) -> list[str]:
    """Labelling errors against the agent: unknown ids, and expected rules the scope would hide."""
    problems = []
    for i, case in enumerate(cases):
        where = f"cases[{i}]"
        if case.scenario is not None and agent.scenario(case.scenario) is None:
            problems.append(f"{where}.scenario: '{case.scenario}' does not exist")
            continue
        if case.step is not None and (case.scenario is None or agent.step(case.scenario, case.step) is None):
            problems.append(f"{where}.step: '{case.step}' is not a step of scenario '{case.scenario}'")
            continue
        if len(set(case.expected)) != len(case.expected):
            problems.append(f"{where}.expected: duplicate rule ids")
        for rule_id in case.expected:
            rule = agent.rule(rule_id)
            if rule is None:
                problems.append(f"{where}.expected: rule '{rule_id}' does not exist")
            elif not rule.enabled:
                problems.append(f"{where}.expected: rule '{rule_id}' is disabled")
            elif not _visible(agent, rule_id, case):
                problems.append(f"{where}.expected: rule '{rule_id}' ({rule.scope.value} {rule.scope_id}) "
                                "is outside the case's scope, the filter hides it")
    return problems


MIN_CASES_PER_RULE = 3


def thinly_labelled(agent: AgentConfig, cases: Sequence[Case]) -> list[tuple[str, int]]:
    """Enabled soft rules that fewer than MIN_CASES_PER_RULE cases expect (the set lags the agent)."""
    counts = {r.id: 0 for r in agent.rules if r.enabled and not r.is_hard_constraint}
    for case in cases:
        for rule_id in case.expected:
            if rule_id in counts:
                counts[rule_id] += 1
    return [(rule_id, n) for rule_id, n in counts.items() if n < MIN_CASES_PER_RULE]


def _visible(agent: AgentConfig, rule_id: str, case: Case) -> bool:
    rule = agent.rule(rule_id)
    assert rule is not None
    if rule.scope == Scope.GLOBAL:
        return True
    if rule.scope == Scope.SCENARIO:
        return rule.scope_id == case.scenario
    return indexed_scope_id(agent, rule) == f"{case.scenario}.{case.step}"


@dataclass
class CaseResult:
    case: Case
    ranked: list[Hit]  # similarity hits, best first (for recall@k)
    candidates: list[Hit]  # what a turn's retrieve stage returns: top_k + always included


def run_cases(agent: AgentConfig, cases: Sequence[Case], embedder: Embedder, index: RuleIndex | None = None,
              max_k: int = 10) -> list[CaseResult]:
    """Each case through the turn's retrieval path: sync, embed the message, scope, search."""
    if index is None:
        from focal.adapters.numpy_index import NumpyRuleIndex

        index = NumpyRuleIndex()
    sync_index(index, embedder, TENANT, agent)
    results = []
    for n, case in enumerate(cases):
        session = Session(tenant_id=TENANT, agent_id=agent.id, session_id=f"case-{n}", customer_id="bench",
                          active_scenario_id=case.scenario, active_step_id=case.step)
        scope = turn_scope(TENANT, agent, session, [])
        vector = embedder.embed([case.message.strip()])[0]
        ranked = [h for h in index.search(scope, vector, max_k) if h.reason == "similarity"]
        candidates = index.search(scope, vector, agent.retrieval.top_k)
        results.append(CaseResult(case, ranked, candidates))
    return results


def recall_at(results: Sequence[CaseResult], k: int) -> tuple[int, int, int]:
    """(expected ids found in the top k, expected ids, cases with every expected id found)."""
    found = total = complete = 0
    for r in results:
        top = {h.rule_id for h in r.ranked[:k]}
        hit = sum(1 for rule_id in r.case.expected if rule_id in top)
        found, total = found + hit, total + len(r.case.expected)
        complete += bool(r.case.expected) and hit == len(r.case.expected)
    return found, total, complete


@dataclass
class ThresholdRow:
    threshold: float
    above_expected: int = 0
    above_unexpected: int = 0
    above_unexpected_hard: int = 0  # of which GLOBAL hard constraints (enforced on every reply anyway)
    expected_missed: int = 0  # expected but below the threshold (or not among the candidates)
    quiet_cases_matched: int = 0  # cases expecting no rule where something passes the threshold

    @property
    def precision(self) -> float:
        return self.above_expected / max(self.above_expected + self.above_unexpected, 1)

    @property
    def recall(self) -> float:
        return self.above_expected / max(self.above_expected + self.expected_missed, 1)


def threshold_row(agent: AgentConfig, results: Sequence[CaseResult], threshold: float) -> ThresholdRow:
    row = ThresholdRow(threshold)
    for r in results:
        passed = {h.rule_id for h in r.candidates if h.score >= threshold}
        expected = set(r.case.expected)
        row.above_expected += len(passed & expected)
        unexpected = passed - expected
        row.above_unexpected += len(unexpected)
        row.above_unexpected_hard += sum(1 for rule_id in unexpected if _global_hard(agent, rule_id))
        row.expected_missed += len(expected - passed)
        row.quiet_cases_matched += not expected and bool(passed)
    return row


def _global_hard(agent: AgentConfig, rule_id: str) -> bool:
    rule = agent.rule(rule_id)
    return bool(rule and rule.is_hard_constraint and rule.scope == Scope.GLOBAL)


def labelled_report(agent: AgentConfig, results: Sequence[CaseResult], ks: Sequence[int], show: bool = False) -> str:
    n_quiet = sum(1 for r in results if not r.case.expected)
    n_expected = sum(len(r.case.expected) for r in results)
    threshold = agent.retrieval.rule_match_threshold
    lines = [
        f"focal bench retrieval: agent {agent.id!r}, {len(results)} cases ({len(results) - n_quiet} expecting "
        f"{n_expected} rule ids, {n_quiet} expecting none); MiniLM + numpy index, scope by turn_scope",
        "",
        f"{'recall@k':<10}{'found':>12}{'recall':>9}{'cases complete':>17}",
    ]
    with_rules = len(results) - n_quiet
    for k in ks:
        found, total, complete = recall_at(results, k)
        lines.append(f"{'@' + str(k):<10}{f'{found}/{total}':>12}{found / max(total, 1):>9.2f}"
                     f"{f'{complete}/{with_rules}':>17}")
    lines += [
        "",
        f"rule filter threshold on each turn's candidates (top_k {agent.retrieval.top_k} + always included);"
        f" * = the agent's {threshold:.2f}",
        f"{'threshold':<11}{'above:expected':>15}{'above:other':>13}{'(hard)':>8}{'expected below':>16}"
        f"{'precision':>11}{'recall':>8}{'none-cases hit':>16}",
    ]
    for t in sorted({round(min(max(threshold + d, 0.0), 1.0), 2) for d in (-0.15, -0.1, -0.05, 0, 0.05, 0.1)}):
        row = threshold_row(agent, results, t)
        mark = "*" if abs(t - threshold) < 1e-9 else " "
        lines.append(f"{f'{t:.2f}{mark}':<11}{row.above_expected:>15}{row.above_unexpected:>13}"
                     f"{f'({row.above_unexpected_hard})':>8}{row.expected_missed:>16}{row.precision:>11.2f}"
                     f"{row.recall:>8.2f}{f'{row.quiet_cases_matched}/{n_quiet}':>16}")
    lines.append("(hard) = unexpected GLOBAL hard constraints among 'above:other'; enforce checks those on every reply anyway")
    thin = thinly_labelled(agent, [r.case for r in results])
    if thin:
        lines.append(f"rules with fewer than {MIN_CASES_PER_RULE} cases: " + ", ".join(f"{i} ({n})" for i, n in thin))
    if show:
        lines += ["", *per_rule_lines(agent, results), "", *miss_lines(results, agent)]
    return "\n".join(lines)


def per_rule_lines(agent: AgentConfig, results: Sequence[CaseResult]) -> list[str]:
    threshold = agent.retrieval.rule_match_threshold
    lines = [f"{'rule':<20}{'cases':>6}{'@1':>5}{'@5':>5}{'rank (mean)':>13}{'score (min)':>13}{'above thr':>11}"
             f"{'false hits':>12}"]
    for rule in agent.rules:
        mine = [r for r in results if rule.id in r.case.expected]
        ranks, scores = [], []
        for r in mine:
            ids = [h.rule_id for h in r.ranked]
            ranks.append(ids.index(rule.id) + 1 if rule.id in ids else len(ids) + 1)
            scores.append(next((h.score for h in r.candidates if h.rule_id == rule.id), float("nan")))
        false_hits = sum(1 for r in results if rule.id not in r.case.expected
                         and any(h.rule_id == rule.id and h.score >= threshold for h in r.candidates))
        at1 = sum(1 for x in ranks if x <= 1)
        at5 = sum(1 for x in ranks if x <= 5)
        above = sum(1 for s in scores if s >= threshold)
        mean_rank = f"{np.mean(ranks):.1f}" if ranks else "-"
        min_score = f"{np.nanmin(scores):.2f}" if scores and not np.all(np.isnan(scores)) else "-"
        lines.append(f"{rule.id:<20}{len(mine):>6}{at1:>5}{at5:>5}{mean_rank:>13}{min_score:>13}"
                     f"{f'{above}/{len(mine)}':>11}{false_hits:>12}")
    return lines


def miss_lines(results: Sequence[CaseResult], agent: AgentConfig) -> list[str]:
    threshold = agent.retrieval.rule_match_threshold
    lines = ["cases with an expected rule outside the top 5 or below the threshold, or a wrong rule above it:"]
    for n, r in enumerate(results):
        top5 = [h.rule_id for h in r.ranked[:5]]
        passed = {h.rule_id for h in r.candidates if h.score >= threshold}
        missing = [x for x in r.case.expected if x not in top5 or x not in passed]
        wrong = sorted(passed - set(r.case.expected))
        if missing or wrong:
            top = ", ".join(f"{h.rule_id} {h.score:.2f}" for h in r.ranked[:3])
            lines.append(f"  [{n}] {r.case.message!r} ({r.case.scenario}/{r.case.step}) expected {list(r.case.expected)}"
                         f" · top: {top}" + (f" · above thr, not expected: {wrong}" if wrong else ""))
    return lines


def labelled(agent_path: str, cases_path: str | None, ks: Sequence[int], show: bool = False,
             embedder: Embedder | None = None) -> tuple[str, list[CaseResult]]:
    from focal.config.loader import load_agent

    agent = load_agent(agent_path)
    path = Path(cases_path) if cases_path else _beside(agent_path)
    cases = load_cases(path)
    problems = case_problems(agent, cases)
    if problems:
        raise ValueError(f"{path}: {len(problems)} problem(s)\n  " + "\n  ".join(problems))
    if embedder is None:
        from focal.adapters.onnx_embedder import shared_embedder

        embedder = shared_embedder()
    results = run_cases(agent, cases, embedder, max_k=max(ks))
    return labelled_report(agent, results, ks, show), results


def _beside(agent_path: str) -> Path:
    p = Path(agent_path)
    return (p if p.is_dir() else p.parent) / "retrieval.yaml"


# --------------------------------------------------------------------------- scale (synthetic)

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
          embedder: Embedder | None = None) -> str:
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
    if embed_sample:
        if embedder is None:
            from focal.adapters.onnx_embedder import shared_embedder

            embedder = shared_embedder()
        lines += ["", embedding_throughput(embedder, embed_sample)]
    return "\n".join(lines)


# --------------------------------------------------------------------------- command line

def _ints(text: str) -> list[int]:
    try:
        values = [int(x.replace("_", "")) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise ValueError(f"expected comma-separated integers, got {text!r}") from exc
    if not values or min(values) < 1:
        raise ValueError(f"expected positive integers, got {text!r}")
    return values


def cli(args) -> int:
    if args.agent is None and not args.rules:
        print("focal bench retrieval: give an AGENT (labelled set) and/or --rules N,... (synthetic scale)")
        return 2
    out = []
    if args.agent is not None:
        try:
            report, _ = labelled(args.agent, args.cases, _ints(args.k), show=args.show)
        except (ValueError, FileNotFoundError) as exc:
            print(str(exc))
            return 1
        out.append(report)
    if args.rules:
        out.append(scale(_ints(args.rules), queries=args.queries, embed_sample=args.embed_sample))
    print("\n\n".join(out))
    return 0
