"""`focal bench intents`: the offline intent sensor on Banking77 and CLINC150, beside published figures.

The benchmark goes through the turn path's own code: every label becomes a scenario whose
`entry_examples` are its training texts, `IntentIndex` (focal.sensing.intents) is built from that
agent exactly as the sensor builds it, and a query is scored by `IntentIndex.score_matrix` — the batch
form of the `scores(vector)` the sensor calls (checked to agree on a sample of queries).

Protocols (see the data folder's README.md):
- Banking77: k-shot (k = 10, 30) on the rows of `banking77_fewshot_indices.json`, seeds 0–4, full
  test set, mean ± sample std; and full training data. No hyper-parameter is tuned on it.
- CLINC150 ("full"): trained on the 15,000 in-scope training queries (the `oos` training queries are
  not used); a message is out of scope when its top score is below a threshold chosen on the
  validation split only, by a stated criterion; test: in-scope accuracy (a rejected in-scope query
  is wrong) and out-of-scope recall.

Embeddings are cached under `--cache` (default `.focal/bench-cache/`), keyed by the model files'
hash and the texts, so a rerun does not embed again.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from focal.bench.intents_report import BankingResult, ClincRow, IntentsRun, MarginRow, format_intents
from focal.models.agent import AgentConfig, NavigationConfig, Scenario, Step
from focal.sensing.intents import IntentIndex

OOS = "oos"

def default_data_dir() -> Path:
    env = os.environ.get("FOCAL_BENCH_INTENTS")
    candidates = [Path(env)] if env else []
    candidates += [Path.cwd().parent / "shared" / "bench" / "intents",
                   Path(__file__).resolve().parents[3].parent / "shared" / "bench" / "intents"]
    for c in candidates:
        if (c / "banking77_test.csv").exists():
            return c
    return candidates[0]


# ---------------------------------------------------------------- embeddings, cached on disk


class CachedEmbedder:
    """An Embedder in front of the real one: vectors kept in memory and on disk (one .npy per batch
    of missing texts, named by sha256(model files digest + texts)). Records the time spent embedding."""

    def __init__(self, base, model_digest: str, cache_dir: Path | None):
        self.base = base
        self.dimension = base.dimension
        self.model_digest = model_digest
        self.cache_dir = cache_dir
        self.memory: dict[str, np.ndarray] = {}
        self.embedded = 0  # sentences run through the model in this process
        self.embed_seconds = 0.0

    def _key(self, texts: Sequence[str]) -> str:
        h = hashlib.sha256(self.model_digest.encode())
        for t in texts:
            h.update(b"\x1e" + t.encode("utf-8"))
        return h.hexdigest()[:40]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.memory))
        if missing:
            path = self.cache_dir / f"{self._key(missing)}.npy" if self.cache_dir else None
            vectors = None
            if path is not None and path.exists():
                loaded = np.load(path)
                if loaded.shape == (len(missing), self.dimension):
                    vectors = loaded
            if vectors is None:
                started = time.perf_counter()
                vectors = np.asarray(self.base.embed(missing), dtype=np.float32)
                self.embed_seconds += time.perf_counter() - started
                self.embedded += len(missing)
                if path is not None:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    tmp = path.with_suffix(".tmp.npy")
                    np.save(tmp, vectors)
                    tmp.replace(path)
            for t, v in zip(missing, vectors, strict=True):
                self.memory[t] = v
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        return np.stack([self.memory[t] for t in texts])


def model_digest(model_dir: str | None = None) -> str:
    from focal.adapters.onnx_embedder import locate_model

    h = hashlib.sha256()
    for p in locate_model(model_dir):
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


def throughput(base, texts: Sequence[str]) -> float:
    """Sentences per second, length-sorted batches of 32 (the embedder's own batching), cold cache."""
    if not texts:
        return 0.0
    clear = getattr(base, "clear_cache", None)
    if clear is not None:
        clear()
    started = time.perf_counter()
    base.embed(list(texts))
    elapsed = time.perf_counter() - started
    if clear is not None:
        clear()
    return len(texts) / elapsed


# ---------------------------------------------------------------- data


def read_banking(path: Path) -> tuple[list[str], list[str]]:
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    return [r["text"] for r in rows], [r["label"] for r in rows]


def read_clinc(path: Path) -> tuple[list[str], list[str]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["text"] for r in rows], [r["label"] for r in rows]


def cap_rows(texts: list[str], labels: list[str], keep: set[str] | None, per_label: int | None) -> tuple[list[str], list[str]]:
    """Rows whose label is kept, at most `per_label` per label, file order."""
    if keep is None and per_label is None:
        return texts, labels
    seen: dict[str, int] = {}
    out_t, out_l = [], []
    for t, l in zip(texts, labels, strict=True):
        if keep is not None and l not in keep:
            continue
        if per_label is not None and seen.get(l, 0) >= per_label:
            continue
        seen[l] = seen.get(l, 0) + 1
        out_t.append(t)
        out_l.append(l)
    return out_t, out_l


# ---------------------------------------------------------------- the sensor on a benchmark


def bench_agent(label_order: Sequence[str], texts: Sequence[str], labels: Sequence[str], head_weight: float | None) -> AgentConfig:
    """An agent whose scenarios are the benchmark's labels, with the training texts as entry examples."""
    by_label: dict[str, list[str]] = {l: [] for l in label_order}
    for t, l in zip(texts, labels, strict=True):
        by_label[l].append(t)
    nav = NavigationConfig() if head_weight is None else NavigationConfig(intent_head_weight=head_weight)
    return AgentConfig(
        id="bench-intents", name="intent benchmark", navigation=nav,
        scenarios=[Scenario(id=l, name=l, intent_label=l, entry_examples=by_label[l], steps=[Step(id="start")],
                            entry_step_id="start") for l in label_order],
    )


def score_queries(index: IntentIndex, vectors: np.ndarray, check: int = 16) -> np.ndarray:
    """[n, labels] scores; the first `check` rows are verified against the turn-time `scores()`."""
    matrix = index.score_matrix(vectors)
    for i in range(min(check, len(vectors))):
        ranked = index.scores(vectors[i])
        top = int(np.argmax(matrix[i]))
        if ranked[0].scenario_id != index.labels[top][0] or abs(ranked[0].score - float(matrix[i, top])) > 1e-5:
            raise AssertionError("IntentIndex.scores() and score_matrix() disagree")
    return matrix


def accuracy(index: IntentIndex, embedder, texts: list[str], labels: list[str]) -> float:
    matrix = score_queries(index, embedder.embed(texts))
    names = np.array([sid for sid, _ in index.labels])
    return float(np.mean(names[matrix.argmax(axis=1)] == np.array(labels))) * 100


def run_banking(data: Path, embedder, *, shots: Sequence[int], seeds: Sequence[int], full: bool, classes: int | None,
                per_label: int | None, head_weight: float | None, log) -> BankingResult:
    train_t, train_l = read_banking(data / "banking77_train.csv")
    test_t, test_l = read_banking(data / "banking77_test.csv")
    label_order = sorted(set(train_l))
    keep = set(label_order[:classes]) if classes else None
    if keep:
        label_order = [l for l in label_order if l in keep]
    test_t, test_l = cap_rows(test_t, test_l, keep, per_label)
    fewshot = json.loads((data / "banking77_fewshot_indices.json").read_text())
    out = BankingResult()
    for k in shots:
        for seed in seeds:
            rows = [i for i in fewshot[str(k)][str(seed)] if keep is None or train_l[i] in keep]
            if not rows:
                raise SystemExit(f"focal bench intents: the {k}-shot rows of seed {seed} in {data} hold no example of "
                                 f"the first {classes} labels; choose more --classes")
            t0 = time.perf_counter()
            index = IntentIndex(bench_agent(label_order, [train_t[i] for i in rows], [train_l[i] for i in rows], head_weight),
                                embedder)
            acc = accuracy(index, embedder, test_t, test_l)
            out.per_seed.setdefault(k, []).append(acc)
            log(f"  banking77 {k}-shot seed {seed}: {acc:.2f}  ({time.perf_counter() - t0:.1f} s)")
    if full:
        t, l = cap_rows(train_t, train_l, keep, per_label)
        t0 = time.perf_counter()
        index = IntentIndex(bench_agent(label_order, t, l, head_weight), embedder)
        out.full = accuracy(index, embedder, test_t, test_l)
        log(f"  banking77 full ({len(t)} rows): {out.full:.2f}  ({time.perf_counter() - t0:.1f} s)")
    return out


def _oos_stats(top_label: np.ndarray, top_score: np.ndarray, gold: np.ndarray, t: float) -> tuple[float, float, float]:
    pred = np.where(top_score < t, OOS, top_label)
    ins = gold != OOS
    in_scope = float(np.mean(pred[ins] == gold[ins])) * 100 if ins.any() else 0.0
    recall = float(np.mean(pred[~ins] == OOS)) * 100 if (~ins).any() else 0.0
    return in_scope, recall, float(np.mean(pred == gold)) * 100


def choose_thresholds(top_label: np.ndarray, top_score: np.ndarray, gold: np.ndarray, budget: float = 1.0) -> dict[str, float]:
    """Thresholds from VALIDATION predictions only.

    - `budget` (ours, primary): the highest threshold whose validation in-scope accuracy stays within
      `budget` points of no threshold at all: an out-of-scope detector may cost at most 1 point of
      in-scope accuracy.
    - `acc151` (Larson et al.): highest 151-way validation accuracy, out-of-scope as its own class
      (the lowest threshold among ties).
    """
    grid = np.round(np.arange(0.0, 1.0001, 0.005), 4)
    stats = [_oos_stats(top_label, top_score, gold, float(t)) for t in grid]
    base_in = _oos_stats(top_label, top_score, gold, -2.0)[0]
    within = [float(t) for t, s in zip(grid, stats, strict=True) if s[0] >= base_in - budget - 1e-9]
    best151 = max(s[2] for s in stats)
    return {
        f"val in-scope −{budget:g} pt": max(within) if within else 0.0,
        "acc151 (Larson)": float(next(t for t, s in zip(grid, stats, strict=True) if s[2] == best151)),
    }


def _margin_stats(top_label: np.ndarray, gap: np.ndarray, gold: np.ndarray, m: float) -> tuple[float, float, float]:
    ins = gold != OOS
    asked = ins & (gap < m)
    answered = ins & ~asked
    rate = float(asked.sum() / max(ins.sum(), 1)) * 100
    right_asked = float(np.mean(top_label[asked] == gold[asked])) * 100 if asked.any() else float("nan")
    right_answered = float(np.mean(top_label[answered] == gold[answered])) * 100 if answered.any() else float("nan")
    return rate, right_asked, right_answered


def choose_margin(top_label: np.ndarray, gap: np.ndarray, gold: np.ndarray) -> float:
    """From VALIDATION predictions only: the widest top-2 margin under which a guess would be right at
    most half the time (asking is then the better move)."""
    best = 0.0
    for m in np.round(np.arange(0.005, 0.2001, 0.005), 4):
        _, right, _ = _margin_stats(top_label, gap, gold, float(m))
        if not np.isnan(right) and right <= 50.0:
            best = float(m)
    return best


def run_clinc(data: Path, embedder, *, classes: int | None, per_label: int | None, head_weight: float | None,
              entry_threshold: float, log) -> tuple[list[ClincRow], MarginRow]:
    train_t, train_l = read_clinc(data / "clinc150_train.jsonl")
    label_order = sorted(set(train_l) - {OOS})
    keep = set(label_order[:classes]) if classes else None
    if keep:
        label_order = [l for l in label_order if l in keep]
    in_scope = [(t, l) for t, l in zip(train_t, train_l, strict=True) if l != OOS]  # oos-train rows not used
    train_t, train_l = cap_rows([t for t, _ in in_scope], [l for _, l in in_scope], keep, per_label)
    t0 = time.perf_counter()
    index = IntentIndex(bench_agent(label_order, train_t, train_l, head_weight), embedder)
    log(f"  clinc150 index: {len(train_t)} examples, {len(label_order)} intents ({time.perf_counter() - t0:.1f} s)")
    names = np.array([sid for sid, _ in index.labels])

    def predict(split: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        t, l = read_clinc(data / f"clinc150_{split}.jsonl")
        keep_split = (keep | {OOS}) if keep else None
        t, l = cap_rows(t, l, keep_split, per_label)
        matrix = score_queries(index, embedder.embed(t))
        top = matrix.argmax(axis=1)
        two = np.sort(matrix, axis=1)[:, -2:] if matrix.shape[1] > 1 else np.hstack([matrix, matrix])
        gaps.append(two[:, 1] - two[:, 0])
        return names[top], matrix[np.arange(len(top)), top], np.array(l)

    gaps: list[np.ndarray] = []
    val = predict("val")
    test = predict("test")
    margin = choose_margin(val[0], gaps[0], val[2])
    v_rate, v_right, _ = _margin_stats(val[0], gaps[0], val[2], margin)
    t_rate, t_right, t_answered = _margin_stats(test[0], gaps[1], test[2], margin)
    margin_row = MarginRow(margin, v_rate, v_right, t_rate, t_right, t_answered)
    choices = choose_thresholds(*val)
    choices["agent default entry_threshold"] = entry_threshold
    rows = []
    for criterion, t in choices.items():
        v_in, v_rec, _ = _oos_stats(*val, t)
        i, r, a = _oos_stats(*test, t)
        rows.append(ClincRow(criterion, t, v_in, v_rec, i, r, a))
    no_t = _oos_stats(*test, -2.0)
    rows.append(ClincRow("no threshold", float("nan"), float("nan"), float("nan"), no_t[0], no_t[1], no_t[2]))
    return rows, margin_row


# ---------------------------------------------------------------- the command


def intents(
    data_dir: str | None = None, cache_dir: str | None = ".focal/bench-cache", *, shots: Sequence[int] = (10, 30),
    seeds: Sequence[int] = (0, 1, 2, 3, 4), full: bool = True, clinc: bool = True, classes: int | None = None,
    per_label: int | None = None, head_weight: float | None = None, baseline: bool = True,
    throughput_sentences: int = 1000, threads: int = 1, log=print, more=None, joint: bool = True,
) -> str:
    """The report; `more(run, data, log)`, if given, adds rows measured otherwise (fine-tuned encoders)."""
    from focal.adapters.onnx_embedder import shared_embedder

    data = Path(data_dir) if data_dir else default_data_dir()
    if not (data / "banking77_test.csv").exists():
        raise FileNotFoundError(f"benchmark data not found in {data} (use --data)")
    started = time.perf_counter()
    base = shared_embedder(threads=threads)
    embedder = CachedEmbedder(base, model_digest(), Path(cache_dir) if cache_dir else None)
    scoring = joint_space(embedder, cache_dir, threads) if joint else embedder
    weight = NavigationConfig().intent_head_weight if head_weight is None else head_weight

    log(f"focal bench intents: data {data}")
    run = IntentsRun(weight=weight, shots=shots, seeds=seeds, full=full, clinc=clinc, classes=classes,
                     per_label=per_label, threads=threads, cache_dir=cache_dir)
    run.notes.append("Focal offline sensor: " + ("English matched in the joint MiniLM + use-multilingual-v3 space, "
                                                 "as a deployment with both models (focal.sensing.intent_ensemble)"
                                                 if joint else "MiniLM's space alone (--minilm-only)"))
    _measure(run, "Focal offline sensor", head_weight, data, scoring, log)
    if baseline and weight > 0:
        _measure(run, "  nearest example only (w = 0)", 0.0, data, scoring, log)
    if more is not None:
        more(run, data, log)

    test_t, _ = read_banking(data / "banking77_test.csv")
    run.throughput = throughput(base, test_t[:throughput_sentences]) if throughput_sentences > 0 else 0.0
    run.throughput_sentences = min(throughput_sentences, len(test_t))
    run.embedded, run.embed_seconds = embedder.embedded, embedder.embed_seconds
    run.seconds = time.perf_counter() - started
    return format_intents(run)


def joint_space(minilm: CachedEmbedder, cache_dir: str | None, threads: int):
    """The space English turns are matched in when the deployment has the multilingual model
    (focal.sensing.intent_ensemble), both parts cached."""
    from focal.adapters.use_embedder import UseEmbedder
    from focal.sensing.intent_ensemble import JointEmbedder

    use = UseEmbedder(threads=threads)
    return JointEmbedder(minilm, CachedEmbedder(use, use.model_id, Path(cache_dir) if cache_dir else None))


def _measure(run: IntentsRun, name: str, head_weight: float | None, data: Path, embedder, log) -> None:
    """One configuration (a head weight) on Banking77 and, unless left out, on CLINC150: its rows added to `run`."""
    log(f"{name.strip()}:")
    run.banking.append((name, run_banking(data, embedder, shots=run.shots, seeds=run.seeds, full=run.full,
                                          classes=run.classes, per_label=run.per_label, head_weight=head_weight, log=log)))
    if run.clinc:
        rows, margin_row = run_clinc(data, embedder, classes=run.classes, per_label=run.per_label, head_weight=head_weight,
                                     entry_threshold=NavigationConfig().entry_threshold, log=log)
        run.clinc_rows.append((name, rows))
        run.margins.append((name, margin_row))
