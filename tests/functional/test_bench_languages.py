"""`focal bench languages` end to end on the tiny Banking77 / CLINC150 slice (tests/data/bench_intents) and a few
rows of the translated sample: one row per language and space, the figures printed, never asserted as accuracy."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from focal.bench.languages import _scores, sample_rows
from focal.main import main
from focal.sensing.spaces import on_reference_scale

DATA = Path(__file__).resolve().parents[1] / "data" / "bench_intents"


def test_the_table_gives_every_language_in_its_own_space_and_in_the_other(tmp_path, capsys):
    assert main(["bench", "languages", "--data", str(DATA), "--cache", str(tmp_path), "--seeds", "0", "--rows", "3",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "LIMITED: not comparable" in out and "(Banking77 3, CLINC150 3 in scope + 3 out of scope)" in out
    rows = [line for line in out.splitlines() if re.match(r"^(en|es|de|fr) ", line)]
    assert [line.split()[0] for line in rows] == ["en", "en", "es", "es", "de", "de", "fr", "fr"]
    assert "turn's space (MiniLM)" in rows[0] and "turn's space (USE-m)" in rows[2]
    assert all(len(re.findall(r"\d+\.\d", line)) >= 3 for line in rows)


def test_the_same_rows_in_every_language():
    rows = sample_rows()
    assert [r["source_row"] for r in rows["en"]] == [r["source_row"] for r in rows["de"]] == [r["source_row"] for r in rows["fr"]]
    assert len(rows["es"]) == 320 and rows["en"][0]["text"] == rows["es"][0]["en"]


class _Fixed:
    model_name = "use-multilingual-v3"
    dimension = 2

    def embed(self, texts):
        return np.ones((len(texts), 2), np.float32) / np.sqrt(2)


class _Index:
    def score_matrix(self, vectors):
        return np.full((len(vectors), 2), 0.6, np.float32)


def test_scores_are_put_on_minilms_scale_as_the_sensor_puts_them():
    cross = _scores(_Index(), _Fixed(), ["hola"], "es")  # type: ignore[arg-type]
    same = _scores(_Index(), _Fixed(), ["hello"], "en")  # type: ignore[arg-type]
    assert cross[0, 0] == pytest.approx(on_reference_scale(_Fixed(), "intent", 0.6), abs=1e-6)  # type: ignore[arg-type]
    assert same[0, 0] == pytest.approx(on_reference_scale(_Fixed(), "intent_same", 0.6), abs=1e-6)  # type: ignore[arg-type]
    assert cross[0, 0] != pytest.approx(same[0, 0])
