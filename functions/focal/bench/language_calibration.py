"""`focal bench languages --calibrate`: the constants that put the multilingual space on the English one's scale.

The navigation thresholds (entry_threshold, clarify_floor, ambiguity_margin…) and the rule-match threshold are
written for MiniLM. A message in another language is matched in the multilingual space (focal.sensing.spaces),
whose similarities sit elsewhere: lower across languages, higher between unrelated texts. Two fits, written to
focal/retrieval/data/ (the mean, read by focal.retrieval.calibration) and focal/sensing/data/ (the scales, read
by focal.sensing.spaces):

- background mean: the multilingual model's mean over the same 6,000 public customer messages as MiniLM's
  (CLINC150 train + Banking77 train, `numpy.random.default_rng(0).choice(n, 6000, replace=False)`, CLINC first);
  rule keys and messages are centred on it like MiniLM's (unrelated pairs near 0).
- score scales, affine maps s → a·s + b onto MiniLM's scale, from data that is never test data:
  intents: two anchors — the mean top score of in-scope messages (the Banking77 *training* rows translated for
  development, tests/data/intents_multilingual/banking77_train_dev.*, 10-shot English examples, seeds 0–4: the
  multilingual model on es/de/fr against MiniLM on the English originals) and the median top score of CLINC150's
  *validation* out-of-scope queries (English, 10 examples per intent, both models);
  rules: two anchors, as for intents — the mean best centred cosine of a message to an example of its own label (the
  development rows: MiniLM on the English originals, the multilingual model on the translations), and the median best
  centred cosine of CLINC150's validation out-of-scope queries to its 10-shot examples (the nearest unrelated key).
  `intent_same` and `rule_same`: the same fits for a message in the language of the example it is compared with (the
  multilingual model on the English originals), which sits higher than a message in another language: an agent's
  translated examples are scored against a message in their language with these.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from focal.bench.intents import bench_agent, cap_rows, read_banking, read_clinc
from focal.ports import Embedder
from focal.retrieval.calibration import DATA, centred
from focal.sensing.intents import IntentIndex
from focal.sensing.spaces import DATA as SCALES

ROOT = Path(__file__).resolve().parents[3]
DEV = ROOT / "tests" / "data" / "intents_multilingual"
LANGS = ("es", "de", "fr")
BACKGROUND_TEXTS = 6000
CLINC_SHOTS = 10
SEEDS = (0, 1, 2, 3, 4)


def background_texts(data: Path) -> list[str]:
    clinc, _ = read_clinc(data / "clinc150_train.jsonl")
    banking, _ = read_banking(data / "banking77_train.csv")
    texts = clinc + banking
    rows = np.random.default_rng(0).choice(len(texts), BACKGROUND_TEXTS, replace=False)
    return [texts[i] for i in rows]


def dev_rows(folder: Path = DEV) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """(English originals, translations per language, labels) of the development rows (Banking77 training rows)."""
    rows = {lang: [json.loads(line) for line in (folder / f"banking77_train_dev.{lang}.jsonl").read_text("utf-8").splitlines()
                   if line.strip()] for lang in LANGS}
    first = rows[LANGS[0]]
    return [r["en"] for r in first], {lang: [r["text"] for r in v] for lang, v in rows.items()}, [r["label"] for r in first]


def _top_scores(index: IntentIndex, embedder: Embedder, texts: list[str]) -> np.ndarray:
    return index.score_matrix(embedder.embed(texts)).max(axis=1)


def _best_by_label(embedder: Embedder, examples: list[str], owners: list[str], texts: list[str],
                   labels: list[str]) -> tuple[float, float]:
    """Means over `texts` of the best centred cosine to an example of the same label, and to one of another label
    (the nearest miss: what a threshold must keep out)."""
    ex = centred(embedder, embedder.embed(examples))
    q = centred(embedder, embedder.embed(texts))
    sims = q @ ex.T
    same = np.array(labels)[:, None] == np.array(owners)[None, :]
    return float(np.mean(np.where(same, sims, -2.0).max(axis=1))), float(np.mean(np.where(same, -2.0, sims).max(axis=1)))


def _affine(target: tuple[float, float], source: tuple[float, float]) -> list[float]:
    """(a, b) mapping the two `source` anchors onto the `target` ones."""
    a = (target[0] - target[1]) / (source[0] - source[1])
    return [round(float(a), 4), round(float(target[0] - a * source[0]), 4)]


def fit_scales(data: Path, english: Embedder, multilingual: Embedder, log: Callable[[str], None] = print) -> dict:
    train_t, train_l = read_banking(data / "banking77_train.csv")
    fewshot = json.loads((data / "banking77_fewshot_indices.json").read_text())
    en, translated, labels = dev_rows()
    label_order = sorted(set(train_l))
    hi_en, hi_ml, slope_en, slope_ml, hi_same, slope_same = [], [], [], [], [], []
    for seed in SEEDS:
        rows = fewshot["10"][str(seed)]
        ex, owners = [train_t[i] for i in rows], [train_l[i] for i in rows]
        agent = bench_agent(label_order, ex, owners, None)
        hi_en.append(float(np.mean(_top_scores(IntentIndex(agent, english), english, en))))
        index = IntentIndex(agent, multilingual)
        hi_ml.append(float(np.mean([np.mean(_top_scores(index, multilingual, translated[lang])) for lang in LANGS])))
        hi_same.append(float(np.mean(_top_scores(index, multilingual, en))))  # a message in the examples' language
        slope_same.append(_best_by_label(multilingual, ex, owners, en, labels))
        slope_en.append(_best_by_label(english, ex, owners, en, labels))
        slope_ml.append(tuple(np.mean([_best_by_label(multilingual, ex, owners, translated[lang], labels) for lang in LANGS],
                                      axis=0)))
    clinc_t, clinc_l = read_clinc(data / "clinc150_train.jsonl")
    kept = [(t, label) for t, label in zip(clinc_t, clinc_l, strict=True) if label != "oos"]
    clinc_t, clinc_l = cap_rows([t for t, _ in kept], [label for _, label in kept], None, CLINC_SHOTS)
    val_t, val_l = read_clinc(data / "clinc150_val.jsonl")
    oos = [t for t, label in zip(val_t, val_l, strict=True) if label == "oos"]
    clinc_agent = bench_agent(sorted(set(clinc_l)), clinc_t, clinc_l, None)
    lo_en = float(np.median(_top_scores(IntentIndex(clinc_agent, english), english, oos)))
    lo_ml = float(np.median(_top_scores(IntentIndex(clinc_agent, multilingual), multilingual, oos)))
    hi = (float(np.mean(hi_en)), float(np.mean(hi_ml)))
    a = (hi[0] - lo_en) / (hi[1] - lo_ml)
    rules_en, rules_ml, rules_same = (float(np.mean(v, axis=0)[0]) for v in (slope_en, slope_ml, slope_same))
    # the nearest unrelated key: CLINC150 validation out-of-scope queries against the 10-shot examples
    miss_en, miss_ml = (_nearest_miss(e, clinc_t, oos) for e in (english, multilingual))
    a_same = (hi[0] - lo_en) / (float(np.mean(hi_same)) - lo_ml)
    log(f"  intents: in-scope mean top {hi[1]:.3f} (multilingual, es/de/fr) ↔ {hi[0]:.3f} (MiniLM, English); "
        f"out-of-scope median {lo_ml:.3f} ↔ {lo_en:.3f}")
    log(f"  rules: best same-label centred cosine {rules_ml:.3f} (multilingual, es/de/fr) ↔ {rules_en:.3f} (MiniLM, "
        f"English); out-of-scope nearest key median {miss_ml:.3f} ↔ {miss_en:.3f}")
    log(f"  same language: in-scope mean top {np.mean(hi_same):.3f}, best same-label centred cosine {rules_same:.3f}")
    return {"intent": [round(a, 4), round(hi[0] - a * hi[1], 4)], "rule": _affine((rules_en, miss_en), (rules_ml, miss_ml)),
            "intent_same": [round(a_same, 4), round(hi[0] - a_same * float(np.mean(hi_same)), 4)],
            "rule_same": _affine((rules_en, miss_en), (rules_same, miss_ml))}


def _nearest_miss(embedder: Embedder, examples: list[str], queries: list[str]) -> float:
    """The median over `queries` (none of them about any example's topic) of their best centred cosine to an example."""
    ex = centred(embedder, embedder.embed(examples))
    return float(np.median((centred(embedder, embedder.embed(queries)) @ ex.T).max(axis=1)))


def calibrate(data: Path, english: Embedder, multilingual: Embedder, out: Path = DATA,
              log: Callable[[str], None] = print) -> str:
    name = str(getattr(multilingual, "model_name", type(multilingual).__name__))
    texts = background_texts(data)
    log(f"calibrating {name}: background mean of {len(texts)} messages…")
    mean = np.asarray(multilingual.embed(texts), dtype=np.float32).mean(axis=0)
    background = {"model": name, "texts": len(texts),
                  "corpus": "CLINC150 train + Banking77 train, 6,000 messages drawn with numpy.random.default_rng(0)."
                            "choice(n, 6000, replace=False) over the two lists concatenated (CLINC first)",
                  "mean": [round(float(x), 6) for x in mean]}
    (out / f"{name}_background.json").write_text(json.dumps(background) + "\n", encoding="utf-8")
    from focal.retrieval.calibration import background_mean

    background_mean.cache_clear()
    scales = fit_scales(data, english, multilingual, log)
    doc = {"model": name, "onto": str(getattr(english, "model_name", "")), **scales,
           "how": "focal bench languages --calibrate (focal/bench/language_calibration.py): development rows and "
                  "CLINC150 validation only, never test data"}
    (SCALES / f"{name}_scale.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return (f"wrote {out / (name + '_background.json')} and {SCALES / (name + '_scale.json')}: "
            f"intent {scales['intent']}, rule {scales['rule']}")
