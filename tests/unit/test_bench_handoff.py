"""`focal bench handoff`: its labelled file is read strictly, and its calibration gives the values the sensor uses."""

from __future__ import annotations

import pytest

from focal.adapters.use_embedder import shared_multilingual_embedder
from focal.bench.handoff import calibrate, read_cases
from focal.sensing.person_request import MARGIN, THRESHOLD


def test_a_malformed_line_is_named(tmp_path):
    path = tmp_path / "cases.tsv"
    path.write_text("# comment\nfr\thandoff\tJe veux parler à quelqu'un\nes\tmaybe\t¿Quién firmó?\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"cases.tsv:3: expected"):
        read_cases(path)


def test_the_sensor_uses_the_calibrated_threshold_and_margin():
    chosen = calibrate(shared_multilingual_embedder())[-1]
    assert chosen == f"chosen: threshold {THRESHOLD:.3f}, margin {MARGIN:.3f}", chosen
