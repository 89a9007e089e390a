"""`focal bench languages`: the offline intent sensor per language, on the translated test sample beside English on
the very same rows (tests/data/intents_multilingual: 160 Banking77 + 120 CLINC150 in-scope + 40 out-of-scope rows,
translated into es/de/fr; test data, never tuned on).

Each message goes the way the sensor takes it: English in MiniLM's space, es/de/fr in the multilingual one
(focal.sensing.spaces) against the agent's English examples, its scores put on MiniLM's scale. For contrast the
table also gives each language in the other space (es/de/fr with MiniLM: what the agent did before; English with the
multilingual model).

- Banking77 rows: the 10-shot protocol's training rows as the examples (banking77_fewshot_indices.json, seeds 0–4),
  accuracy mean ± sample std over the seeds.
- CLINC150 rows: 10 training examples per intent (all 150 intents), a message out of scope when its best score is
  below the agent's default `navigation.entry_threshold` (it starts no flow): in-scope accuracy (a rejected
  in-scope message is wrong) and out-of-scope recall.

`--calibrate` fits the multilingual space's background mean and score scales first (focal.bench.language_calibration:
development rows and CLINC150 validation only).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from focal.bench.intents import CachedEmbedder, bench_agent, cap_rows, default_data_dir, read_banking, read_clinc
from focal.models.agent import NavigationConfig
from focal.sensing.intents import IntentIndex
from focal.sensing.spaces import on_reference_scale

SAMPLE = Path(__file__).resolve().parents[3] / "tests" / "data" / "intents_multilingual"
LANGS = ("en", "es", "de", "fr")
OOS = "oos"
CLINC_SHOTS = 10


def sample_rows(folder: Path = SAMPLE, limit: int | None = None) -> dict[str, list[dict[str, Any]]]:
    """Per language, the test sample's rows (English: the originals of the same rows); `limit`: at most that many
    Banking77, CLINC150 in-scope and CLINC150 out-of-scope rows each (a quick run, not comparable)."""
    rows = {lang: [json.loads(line) for line in (folder / f"banking77_clinc150_test_sample.{lang}.jsonl")
                   .read_text(encoding="utf-8").splitlines() if line.strip()] for lang in LANGS[1:]}
    if limit is not None:
        rows = {lang: _first(v, limit) for lang, v in rows.items()}
    rows["en"] = [{**r, "text": r["en"]} for r in rows["es"]]
    return rows


def _first(rows: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    seen: dict[tuple[str, bool], int] = {}
    out = []
    for r in rows:
        key = (r["source"], r["label"] == OOS)
        if seen.get(key, 0) < limit:
            seen[key] = seen.get(key, 0) + 1
            out.append(r)
    return out


def _scores(index: IntentIndex, embedder: Any, texts: list[str], lang: str) -> np.ndarray:
    """[n, labels] scores on MiniLM's scale, as the sensor gets them: the multilingual model's by its cross-language
    fit for es/de/fr against the English examples, by its same-language fit for English; MiniLM's as they are."""
    matrix = index.score_matrix(embedder.embed(texts))
    kind = "intent" if lang != "en" else "intent_same"
    return np.vectorize(lambda s: on_reference_scale(embedder, kind, float(s)))(matrix)


def banking(data: Path, rows: dict[str, list[dict[str, Any]]], embedder: Any, lang: str, seeds: tuple[int, ...]) -> list[float]:
    train_t, train_l = read_banking(data / "banking77_train.csv")
    fewshot = json.loads((data / "banking77_fewshot_indices.json").read_text())
    chosen = [r for r in rows[lang] if r["source"] == "banking77"]
    texts, gold = [r["text"] for r in chosen], np.array([r["label"] for r in chosen])
    out = []
    for seed in seeds:
        picked = fewshot["10"][str(seed)]
        index = IntentIndex(bench_agent(sorted(set(train_l)), [train_t[i] for i in picked], [train_l[i] for i in picked],
                                        None), embedder)
        names = np.array([sid for sid, _ in index.labels])
        out.append(float(np.mean(names[_scores(index, embedder, texts, lang).argmax(axis=1)] == gold)) * 100)
    return out


def clinc(data: Path, rows: dict[str, list[dict[str, Any]]], embedder: Any, lang: str, threshold: float) -> tuple[float, float]:
    """(in-scope accuracy, out-of-scope recall) at `threshold`."""
    train_t, train_l = read_clinc(data / "clinc150_train.jsonl")
    kept = [(t, label) for t, label in zip(train_t, train_l, strict=True) if label != OOS]
    train_t, train_l = cap_rows([t for t, _ in kept], [label for _, label in kept], None, CLINC_SHOTS)
    index = IntentIndex(bench_agent(sorted(set(train_l)), train_t, train_l, None), embedder)
    names = np.array([sid for sid, _ in index.labels])
    chosen = [r for r in rows[lang] if r["source"] == "clinc150"]
    scores = _scores(index, embedder, [r["text"] for r in chosen], lang)
    gold = np.array([r["label"] for r in chosen])
    pred = np.where(scores.max(axis=1) < threshold, OOS, names[scores.argmax(axis=1)])
    ins = gold != OOS
    return float(np.mean(pred[ins] == gold[ins])) * 100, float(np.mean(pred[~ins] == OOS)) * 100


def _embedders(cache: Path | None) -> tuple[Any, Any]:
    from focal.adapters.onnx_embedder import shared_embedder
    from focal.adapters.use_embedder import shared_multilingual_embedder
    from focal.bench.intents import model_digest

    english, multilingual = shared_embedder(), shared_multilingual_embedder()
    wrapped = (CachedEmbedder(english, model_digest(), cache), CachedEmbedder(multilingual, multilingual.model_id, cache))
    for inner, outer in zip((english, multilingual), wrapped, strict=True):
        outer.model_name = inner.model_name  # type: ignore[attr-defined]  # the scale is the model's
    return wrapped


def _mean_std(values: list[float]) -> str:
    return f"{statistics.mean(values):.1f} ± {statistics.stdev(values):.1f}" if len(values) > 1 else f"{values[0]:.1f}"


def report(data_dir: str | None = None, cache_dir: str | None = ".focal/bench-cache", seeds: tuple[int, ...] = (0, 1, 2, 3, 4),
           calibrate: bool = False, limit: int | None = None, log: Callable[[str], None] = print) -> str:
    data = Path(data_dir) if data_dir else default_data_dir()
    if not (data / "banking77_train.csv").exists():
        raise FileNotFoundError(f"benchmark data not found in {data} (use --data)")
    started = time.perf_counter()
    english, multilingual = _embedders(Path(cache_dir) if cache_dir else None)
    lines = []
    if calibrate:
        from focal.bench.language_calibration import calibrate as fit

        lines.append(fit(data, english, multilingual, log=log))
    rows = sample_rows(limit=limit)
    threshold = NavigationConfig().entry_threshold
    head = (f"{'language':<10}{'space':<30}{'Banking77 10-shot acc %':>25}{'CLINC in-scope acc %':>22}"
            f"{'CLINC oos recall %':>20}")
    counts = {k: sum(1 for r in rows["es"] if (r["source"], r["label"] == OOS) == k)
              for k in (("banking77", False), ("clinc150", False), ("clinc150", True))}
    lines += [f"focal bench languages: {len(rows['es'])} test rows per language (Banking77 {counts['banking77', False]}, "
              f"CLINC150 {counts['clinc150', False]} in scope + {counts['clinc150', True]} out of scope), the same rows "
              f"in every language; out of scope below entry_threshold {threshold:g}"
              + ("; LIMITED: not comparable" if limit is not None else ""),
              head, "-" * len(head)]
    for lang in LANGS:
        turn = english if lang == "en" else multilingual
        other = multilingual if lang == "en" else english
        for embedder, label in ((turn, "turn's space"), (other, "other space (contrast)")):
            log(f"  {lang}: {embedder.model_name}…")
            acc = banking(data, rows, embedder, lang, seeds)
            in_scope, recall = clinc(data, rows, embedder, lang, threshold)
            lines.append(f"{lang:<10}{label + ' ' + _short(embedder):<30}{_mean_std(acc):>25}{in_scope:>22.1f}"
                         f"{recall:>20.1f}")
    lines.append(f"  seeds {','.join(map(str, seeds))}; es/de/fr scores on MiniLM's scale by the fitted cross-language map; "
                 f"wall time {time.perf_counter() - started:.0f} s")
    return "\n".join(lines)


def _short(embedder: Any) -> str:
    return "(MiniLM)" if "MiniLM" in str(embedder.model_name) else "(USE-m)"


def add_parser(bsub) -> None:  # noqa: ANN001 - argparse sub-parsers
    s = bsub.add_parser("languages", help="intent accuracy per language on the translated test sample, beside English")
    s.add_argument("--data", help="folder with the benchmark files (default: ../shared/bench/intents)")
    s.add_argument("--cache", default=".focal/bench-cache", help="embedding cache folder")
    s.add_argument("--seeds", default="0,1,2,3,4", help="comma-separated seeds of the Banking77 10-shot samples")
    s.add_argument("--rows", type=int, help="quick run: at most N rows of each part of the sample (not comparable)")
    s.add_argument("--quiet", action="store_true", help="print only the table")
    s.add_argument("--calibrate", action="store_true",
                   help="fit the multilingual space's background mean and score scales first (development data only)")
    s.set_defaults(func=lambda a: print(report(a.data, a.cache, tuple(int(x) for x in a.seeds.split(",") if x.strip()),
                                               a.calibrate, a.rows, (lambda _: None) if a.quiet else print)) or 0)
