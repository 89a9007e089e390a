"""`focal bench prevalidation DIR` for a folder of `messages.LANG.yaml` files: the figures per language.

Each file is a labelled set as `focal bench prevalidation FILE` reads it (tests/data/prevalidation_blind holds one
per language, written blind by another session). Every message goes through `prevalidate` with both embedders, as
the sensor runs it: the English one, and the multilingual one that the classifier for other languages reads
(focal.sensing.injection_verdict). Also printed: that classifier's size and what it costs per message.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from focal.bench.prevalidation import LABELS, Tally, evaluate, load_labelled
from focal.models.agent import AgentConfig
from focal.ports import Embedder
from focal.sensing.injection_classifier import MULTILINGUAL_DATA_FILE, shipped_multilingual_classifier
from focal.sensing.injection_verdict import reads_multilingual
from focal.sensing.injection_view import injection_view

PATTERN = "messages.*.yaml"


def language_files(folder: str | Path) -> dict[str, Path]:
    """{language code: file} of the `messages.LANG.yaml` files in `folder` (empty: not such a folder)."""
    found = {p.name.split(".")[1]: p for p in sorted(Path(folder).glob(PATTERN)) if len(p.name.split(".")) == 3}
    return dict(sorted(found.items(), key=lambda kv: (kv[0] != "en", kv[0])))


def _pct(tally: Tally) -> str:
    word = "caught" if LABELS[tally.label] else "false alarms"
    share = f" ({100 * tally.flagged / tally.total:.1f} %)" if tally.total else ""
    return f"{tally.label} {word} {tally.flagged}/{tally.total}{share}"


def _cost_lines(messages: list[str], multilingual: Embedder) -> list[str]:
    model = shipped_multilingual_classifier()
    views = [v for v in (injection_view(m) for m in messages) if reads_multilingual(v, None)]
    raw = (Path(__file__).resolve().parents[1] / "sensing" / "data" / MULTILINGUAL_DATA_FILE).stat().st_size
    lines = [f"multilingual classifier: {model.size_bytes() / 1024:.0f} KiB of weights "
             f"({' → '.join(str(w.shape[0]) for w in model.weights)} → 1), file {raw / 1024:.0f} KiB, "
             f"data {model.digest}, threshold {model.threshold:.4f}"
             + "".join(f", {lang} {t:.4f}" for lang, t in model.language_thresholds)]
    if not views:
        return lines
    clear = getattr(multilingual, "clear_cache", None)
    if callable(clear):
        clear()
    embed_us = []
    for view in views[:200]:
        t0 = time.perf_counter()
        multilingual.embed([view])
        embed_us.append((time.perf_counter() - t0) * 1e6)
    vectors = np.asarray(multilingual.embed(views[:200]), dtype=np.float32)
    t0 = time.perf_counter()
    for v in vectors:
        model.score(v)
    score_us = (time.perf_counter() - t0) / len(vectors) * 1e6
    lines.append(f"  per message read by it ({len(embed_us)} views): embedding p50 {np.percentile(embed_us, 50):.0f} µs, "
                 f"p95 {np.percentile(embed_us, 95):.0f} µs; classifier {score_us:.0f} µs")
    return lines


def languages_report(folder: str | Path, show: bool = False, agent: AgentConfig | None = None) -> str:
    from focal.adapters.onnx_embedder import shared_embedder
    from focal.adapters.use_embedder import shared_multilingual_embedder

    agent = agent or AgentConfig(id="bench", name="bench")
    english, multilingual = shared_embedder(), shared_multilingual_embedder()
    lines = [f"pre-validation per language on {folder} (all checks, both embedders)"]
    everything: list[str] = []
    for lang, path in language_files(folder).items():
        sets = load_labelled(path)
        tallies = evaluate(agent, sets, english, None, multilingual)
        lines.append(f"{lang:<4} " + ", ".join(_pct(t) for t in tallies.values()))
        everything += [m for messages in sets.values() for m in messages if m.strip()]
        if show:
            lines += [f"  {'missed' if LABELS[t.label] else 'false alarm'} [{lang} {t.label}]: {m}"
                      for t in tallies.values() for m in t.wrong]
    return "\n".join(lines + _cost_lines(everything, multilingual))
