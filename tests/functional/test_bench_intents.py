"""`focal bench intents` end to end on a tiny slice of the real Banking77 / CLINC150 files, shipped in
tests/data/bench_intents (so the test runs wherever the repository is cloned)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from focal.bench.intents import OOS, choose_thresholds
from focal.main import main

DATA = Path(__file__).resolve().parents[1] / "data" / "bench_intents"

SLICE = ["bench", "intents", "--data", str(DATA), "--classes", "3", "--rows-per-label", "5", "--seeds", "0",
         "--shots", "10", "--throughput", "16", "--quiet"]


def test_bench_prints_one_table_with_the_published_anchors_and_caches_embeddings(tmp_path, capsys):
    cache = tmp_path / "cache"
    assert main([*SLICE, "--cache", str(cache)]) == 0
    out = capsys.readouterr().out
    # the table: our rows beside the anchors of the data README
    assert "Banking77 accuracy %" in out and "CLINC150 full" in out
    assert "Focal offline sensor" in out and "nearest example only (w = 0)" in out
    assert "Banking77 10-shot ≥ 89.8" in out and "in-scope ≥ 95.0 with oos recall ≥ 60" in out
    for anchor in ("89.79", "85.19", "83.42", "93.36", "93.66", "96.2", "52.3", "93.4", "49.1"):
        assert anchor in out
    assert "SLICE" in out  # a slice says it is not comparable
    assert "val in-scope −1 pt" in out and "acc151 (Larson)" in out
    assert "sentences/s" in out and "this run embedded" in out
    assert "joint MiniLM + use-multilingual-v3 space" in out  # the space the sensor matches English turns in
    banking_row = next(line for line in out.splitlines() if line.startswith("Focal offline sensor") and "%" not in line)
    assert float(banking_row.split()[3]) > 60  # 3 labels, 10-shot: far above chance
    assert list(cache.glob("*.npy"))

    # a rerun finds every embedding in the cache
    assert main([*SLICE, "--cache", str(cache), "--throughput", "0"]) == 0
    again = capsys.readouterr().out
    assert "this run embedded" not in again
    assert again.split("Embedding throughput")[0] == out.split("Embedding throughput")[0]  # same figures


def test_thresholds_come_from_validation_predictions_by_the_stated_criteria():
    gold = np.array(["a", "a", "a", "a", "b", "b", "b", "b", OOS, OOS])
    top = np.array(["a", "a", "a", "a", "b", "b", "b", "a", "a", "b"])
    score = np.array([0.9, 0.8, 0.7, 0.42, 0.9, 0.85, 0.6, 0.5, 0.45, 0.3])
    chosen = choose_thresholds(top, score, gold, budget=20.0)
    # no threshold: 7/8 in-scope right; a 20-point budget allows losing one right answer (0.42), not two
    assert chosen["val in-scope −20 pt"] == pytest.approx(0.6)
    # Larson: best 151-way accuracy, 8/10, first reached once the 0.3 oos query is rejected (t > 0.3)
    # and kept up to 0.42; the lowest such grid value is chosen
    assert chosen["acc151 (Larson)"] == pytest.approx(0.305)

def test_a_shot_count_with_no_rows_in_the_slice_is_a_clear_error_not_a_crash(tmp_path):
    args = [a if a != "10" else "30" for a in SLICE]  # the slice holds 10-shot rows only
    with pytest.raises(SystemExit, match="30-shot rows of seed 0 .* hold no example"):
        main([*args, "--cache", str(tmp_path / "cache")])


def _model_folder(folder: Path) -> None:
    """A model folder in the layout scripts/finetune_intents.py writes, holding the shipped model's files (a real
    ONNX model: what is checked is the loading and the reporting, not the fine-tuning, which needs torch)."""
    from focal.adapters.onnx_embedder import locate_model

    model, tokenizer = locate_model()
    (folder / "minilm").mkdir(parents=True)
    (folder / "minilm" / "model.onnx").symlink_to(model)
    (folder / "minilm" / "tokenizer.json").symlink_to(tokenizer)


def test_finetuned_folders_are_measured_by_the_same_protocol_and_missing_seeds_are_named(tmp_path, capsys):
    root = tmp_path / "finetuned"
    _model_folder(root / "banking77-10shot-seed0")
    _model_folder(root / "clinc150")
    args = [a if a != "0" else "0,1" for a in SLICE]  # seeds 0 and 1: seed 1 has no folder
    assert main([*args, "--cache", str(tmp_path / "cache"), "--throughput", "0", "--finetuned", str(root)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("fine-tuned MiniLM (build time, per data set)")]
    assert len(rows) == 3  # Banking77, CLINC150 and its ambiguity trap
    shipped = next(line for line in out.splitlines() if line.startswith("Focal offline sensor") and "%" not in line)
    # the same model files through the fine-tuned path give seed 0's figure of the shipped path
    seed0 = next(line for line in out.splitlines() if "Focal offline sensor 10-shot per seed" in line)
    assert rows[0].split()[-1] == seed0.split("per seed ")[1].split("/")[0]
    assert "fine-tuned MiniLM (build time, per data set) 10-shot per seed" in out and "(seeds 0)" in out
    assert "no model folder under" in out and "banking77-10shot-seed1" in out
    assert "MB," in out and "ms/sentence" in out
    assert shipped


def test_a_finetuned_path_that_is_not_a_folder_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="--finetuned .* is not a folder"):
        main([*SLICE, "--cache", str(tmp_path / "cache"), "--finetuned", str(tmp_path / "nothing")])
