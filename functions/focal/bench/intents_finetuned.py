"""`focal bench intents --finetuned DIR`: the same IntentIndex on encoders fine-tuned at build time.

`scripts/finetune_intents.py` (build time, PyTorch, never imported here) writes one model folder per data set
and sample, because the pairs come from that sample's training rows only:

    DIR/banking77-{k}shot-seed{s}/minilm/{model.onnx,tokenizer.json}   (Banking77 k-shot, one seed)
    DIR/clinc150/minilm/{model.onnx,tokenizer.json}                     (CLINC150 in-scope train split)

Each folder is loaded by the runtime embedder (focal.adapters.onnx_embedder, FOCAL_MODEL_DIR layout) and scored
by exactly the protocol of the shipped model's rows; seeds without a folder are left out and named.
"""

from __future__ import annotations

import time
from pathlib import Path

from focal.bench.intents import CachedEmbedder, model_digest, read_banking, run_banking, run_clinc
from focal.bench.intents_report import BankingResult, IntentsRun
from focal.models.agent import NavigationConfig

NAME = "fine-tuned MiniLM (build time, per data set)"


def banking_folder(root: Path, k: int, seed: int) -> Path:
    return root / f"banking77-{k}shot-seed{seed}"


def clinc_folder(root: Path) -> Path:
    return root / "clinc150"


def has_model(folder: Path) -> bool:
    return (folder / "minilm" / "model.onnx").exists() and (folder / "minilm" / "tokenizer.json").exists()


def _embedder(folder: Path, cache_dir: str | None, threads: int) -> CachedEmbedder:
    from focal.adapters.onnx_embedder import OnnxEmbedder

    base = OnnxEmbedder(str(folder), threads)
    return CachedEmbedder(base, model_digest(str(folder)), Path(cache_dir) / "finetuned" if cache_dir else None)


def _ms_per_sentence(folder: Path | None, threads: int, texts: list[str]) -> float:
    """Milliseconds per sentence, one sentence per call (the turn path's shape), cold model cache; `None`: the
    shipped model."""
    from focal.adapters.onnx_embedder import OnnxEmbedder

    model = OnnxEmbedder(str(folder) if folder else None, threads)
    model.embed(texts[:1])  # warm-up
    model.clear_cache()
    started = time.perf_counter()
    for t in texts:
        model.embed([t])
    return (time.perf_counter() - started) / max(len(texts), 1) * 1000


def measure_finetuned(run: IntentsRun, root: Path, data: Path, head_weight: float | None, log) -> None:
    """Rows for every fine-tuned folder found under `root`, appended to `run` under NAME, and a line on the models."""
    result = BankingResult()
    missing: list[str] = []
    measured: Path | None = None
    for k in run.shots:
        for seed in run.seeds:
            folder = banking_folder(root, k, seed)
            if not has_model(folder):
                missing.append(folder.name)
                continue
            emb = _embedder(folder, run.cache_dir, run.threads)
            one = run_banking(data, emb, shots=[k], seeds=[seed], full=False, classes=run.classes,
                              per_label=run.per_label, head_weight=head_weight, log=log)
            result.per_seed.setdefault(k, []).extend(one.per_seed.get(k, []))
            result.seed_ids.setdefault(k, []).append(seed)
            measured = measured or folder
    if result.per_seed:
        run.banking.append((NAME, result))
    if run.clinc and has_model(clinc_folder(root)):
        folder = clinc_folder(root)
        rows, margin_row = run_clinc(data, _embedder(folder, run.cache_dir, run.threads), classes=run.classes,
                                     per_label=run.per_label, head_weight=head_weight,
                                     entry_threshold=NavigationConfig().entry_threshold, log=log)
        run.clinc_rows.append((NAME, rows))
        run.margins.append((NAME, margin_row))
        measured = measured or folder
    elif run.clinc:
        missing.append(clinc_folder(root).name)
    if measured is not None:
        size = (measured / "minilm" / "model.onnx").stat().st_size / 1e6
        texts = read_banking(data / "banking77_test.csv")[0][:200]
        ms = _ms_per_sentence(measured, run.threads, texts)
        shipped_ms = _ms_per_sentence(None, run.threads, texts)
        run.notes.append(f"{NAME}: {measured.name}/minilm/model.onnx {size:.1f} MB, {ms:.1f} ms/sentence against "
                         f"{shipped_ms:.1f} for the shipped model (one per call, {len(texts)} Banking77 test sentences, "
                         f"{run.threads} thread, the fine-tuned one timed first)")
    if missing:
        run.notes.append(f"{NAME}: no model folder under {root} for {', '.join(missing)} (not measured)")
