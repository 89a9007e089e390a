"""The report of `focal bench intents` (focal.bench.intents): the Banking77 table, the CLINC150 table and its
ambiguity trap, each beside the published figures, then the embedding throughput."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from focal.models.agent import NavigationConfig

# Published figures, copied from the data folder's README.md ("Published numbers to beat").
BANKING_ANCHORS: list[tuple[str, str, str]] = [  # (model, 10-shot, full)
    ("ICDA (LLM-augmented data), Lin et al. 2023", "89.79", "–"),
    ("USE+ConveRT (MLP), Casanueva et al. 2020", "85.19", "93.36"),
    ("USE (MLP), Casanueva et al. 2020", "84.23", "–"),
    ("BERT-Large fine-tuned, Casanueva et al. 2020", "83.42", "93.66"),
    ("ConveRT (MLP), Casanueva et al. 2020", "83.32", "–"),
]
CLINC_ANCHORS: list[tuple[str, str, str]] = [  # (method, in-scope acc, oos recall), Larson et al. 2019 Table 2
    ("oos-threshold BERT, Larson et al. 2019", "96.2", "52.3"),
    ("oos-threshold MLP on USE", "93.4", "49.1"),
    ("oos-threshold SVM (bag of words)", "88.2", "18.0"),
    ("oos-train BERT", "96.9", "40.3"),
    ("oos-train MLP on USE", "93.5", "47.4"),
    ("oos-train Rasa", "91.5", "45.3"),
    ("oos-train DialogFlow", "91.7", "14.0"),
]
MEASURED_BASELINE = "MiniLM 1-NN cosine, measured (README): Banking77 82.20 ± 0.66 / 88.67 ± 0.21 / 91.92"
TARGETS = "targets: Banking77 10-shot ≥ 89.8 (the best few-shot figure above); CLINC150 in-scope ≥ 95.0 with oos recall ≥ 60"


@dataclass
class BankingResult:
    per_seed: dict[int, list[float]] = field(default_factory=dict)  # k → accuracy per seed
    full: float | None = None
    seed_ids: dict[int, list[int]] = field(default_factory=dict)  # k → the seeds measured, when not the run's seeds


@dataclass
class ClincRow:
    criterion: str
    threshold: float
    val_in_scope: float
    val_oos_recall: float
    in_scope: float
    oos_recall: float
    acc151: float


@dataclass
class MarginRow:
    """The ambiguity trap: in-scope queries whose top-2 scores are closer than `margin` are asked about."""

    margin: float
    val_ask_rate: float
    val_right_if_guessed: float
    ask_rate: float
    right_if_guessed: float
    answered_accuracy: float


@dataclass
class IntentsRun:
    """What one `focal bench intents` run measured, and how it was run."""

    weight: float  # the logistic head's weight of the sensor's own rows
    shots: Sequence[int]
    seeds: Sequence[int]
    full: bool
    clinc: bool
    classes: int | None
    per_label: int | None
    threads: int
    cache_dir: str | None
    banking: list[tuple[str, BankingResult]] = field(default_factory=list)  # (configuration, result)
    clinc_rows: list[tuple[str, list[ClincRow]]] = field(default_factory=list)
    margins: list[tuple[str, MarginRow]] = field(default_factory=list)
    throughput: float = 0.0  # sentences per second
    throughput_sentences: int = 0
    embedded: int = 0  # sentences this run embedded (not found in the cache)
    embed_seconds: float = 0.0
    seconds: float = 0.0  # the run's wall time
    notes: list[str] = field(default_factory=list)  # lines printed after the throughput (fine-tuned models)


def _mean_std(values: list[float]) -> str:
    if not values:
        return "–"
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}"


def _table_head(head: str) -> list[str]:
    return [head, "-" * len(head)]


def _title_lines(run: IntentsRun) -> list[str]:
    lines = ["", f"focal bench intents — offline intent sensor (IntentIndex: nearest example × logistic head, "
                 f"w = {run.weight:g}), all-MiniLM-L6-v2 int8 ONNX, no hosted model"]
    if run.classes or run.per_label:
        lines.append(f"  SLICE (classes={run.classes}, rows per label={run.per_label}): figures are NOT comparable to the "
                     "anchors")
    return [*lines, f"  {TARGETS}", ""]


def _banking_lines(run: IntentsRun) -> list[str]:
    """Accuracy per k-shot column (mean ± std over seeds) and on full training data, beside the anchors; per seed."""
    cols = [f"{k}-shot" for k in run.shots] + (["full"] if run.full else [])
    lines = _table_head(f"{'Banking77 accuracy %, test set':<48}" + "".join(f"{c:>16}" for c in cols))
    for name, res in run.banking:
        full = [f"{res.full:.2f}"] if run.full and res.full is not None else []
        cells = [_mean_std(res.per_seed.get(k, [])) for k in run.shots] + full
        lines.append(f"{name:<48}" + "".join(f"{c:>16}" for c in cells))
    for name, ten, full_fig in BANKING_ANCHORS:
        cells = [ten if k == 10 else "–" for k in run.shots] + ([full_fig] if run.full else [])
        lines.append(f"{name:<48}" + "".join(f"{c:>16}" for c in cells))
    lines.append(f"  ({MEASURED_BASELINE}; 30-shot column of Casanueva et al. not retrievable here)")
    for name, res in run.banking:
        for k, v in res.per_seed.items():
            seeds = ",".join(map(str, res.seed_ids.get(k, run.seeds)))
            lines.append(f"  {name.strip()} {k}-shot per seed {'/'.join(f'{x:.2f}' for x in v)} (seeds {seeds})")
    return lines


def _clinc_row(name: str, r: ClincRow) -> str:
    t = "–" if np.isnan(r.threshold) else f"{r.threshold:.3f}"
    how = r.criterion if np.isnan(r.val_in_scope) else f"{r.criterion} (val {r.val_in_scope:.2f} / {r.val_oos_recall:.1f})"
    return f"{name:<48}{r.in_scope:>14.2f}{r.oos_recall:>12.2f}{r.acc151:>9.2f}{t:>11}  {how}"


def _clinc_lines(run: IntentsRun) -> list[str]:
    """In-scope accuracy and out-of-scope recall at each chosen threshold (the configuration named once), beside
    the anchors."""
    lines = ["", *_table_head(f"{'CLINC150 full, test (in-scope / oos)':<48}{'in-scope acc':>14}{'oos recall':>12}"
                              f"{'151-way':>9}{'threshold':>11}  chosen by (on val: in-scope / oos recall)")]
    for name, rows in run.clinc_rows:
        lines += [_clinc_row(name if n == 0 else "", r) for n, r in enumerate(rows)]
    lines += [f"{name:<48}{i:>14}{recall:>12}" for name, i, recall in CLINC_ANCHORS]
    lines.append("  (out of scope: top score < threshold; thresholds chosen on the validation split only, never on test; "
                 "the 100 oos training queries are not used)")
    return lines


def _margin_lines(run: IntentsRun) -> list[str]:
    """The ambiguity trap at the margin chosen on val, with the agent's defaults to compare."""
    lines = ["", *_table_head(f"{'CLINC150 ambiguity trap (top-2 gap < margin: ask)':<48}{'margin':>8}{'asked %':>9}"
                              f"{'guess right %':>15}{'answered acc':>14}  (val: asked % / guess right %)")]
    for name, m in run.margins:
        lines.append(f"{name:<48}{m.margin:>8.3f}{m.ask_rate:>9.2f}{m.right_if_guessed:>15.2f}"
                     f"{m.answered_accuracy:>14.2f}  (val {m.val_ask_rate:.2f} / {m.val_right_if_guessed:.2f})")
    nav = NavigationConfig()
    lines.append(f"  margin: the widest top-2 gap under which a guess is right at most half the time on val; agent "
                 f"defaults: ambiguity_margin {nav.ambiguity_margin:g}, clarify_floor {nav.clarify_floor:g}, "
                 f"entry_threshold {nav.entry_threshold:g}")
    return lines


def _throughput_lines(run: IntentsRun) -> list[str]:
    lines = ["", f"Embedding throughput: {run.throughput:.0f} sentences/s (MiniLM int8, onnxruntime {run.threads} intra-op "
                 f"thread, length-sorted batches of 32, {run.throughput_sentences} Banking77 test sentences, cold cache)"]
    if run.embedded:
        lines.append(f"  this run embedded {run.embedded} uncached sentences in {run.embed_seconds:.1f} s "
                     f"({run.embedded / max(run.embed_seconds, 1e-9):.0f} sentences/s)")
    lines.append(f"  wall time {run.seconds:.1f} s; embeddings cached in {run.cache_dir or '(no cache)'}")
    return lines + [f"  {note}" for note in run.notes]


def format_intents(run: IntentsRun) -> str:
    lines = [*_title_lines(run), *_banking_lines(run)]
    if run.clinc:
        lines += [*_clinc_lines(run), *_margin_lines(run)]
    return "\n".join([*lines, *_throughput_lines(run)])
