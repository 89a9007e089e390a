"""`focal bench handoff`: its labelled file is read strictly, and its calibration gives the values the sensor uses."""

from __future__ import annotations

import numpy as np
import pytest

from focal.adapters.use_embedder import shared_multilingual_embedder
from focal.bench.handoff import _threshold, calibrate, read_cases
from focal.sensing.person_request import MARGIN, THRESHOLD


def test_a_malformed_line_is_named(tmp_path):
    path = tmp_path / "cases.tsv"
    path.write_text("# comment\nfr\thandoff\tJe veux parler à quelqu'un\nes\tmaybe\t¿Quién firmó?\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"cases.tsv:3: expected"):
        read_cases(path)


def test_the_sensor_uses_the_calibrated_threshold_and_margin():
    chosen = calibrate(shared_multilingual_embedder())[-1]
    assert chosen == f"chosen: threshold {THRESHOLD:.3f}, margin {MARGIN:.3f}", chosen


def test_a_near_miss_the_margin_stops_does_not_set_the_threshold():
    # requests at 0.62 and 0.80; a near miss at 0.75 as near to its kind-mates as to a request, another at 0.50
    asking = np.array([0.62, 0.80, 0.75, 0.50])
    near = np.array([0.10, 0.10, 0.75, 0.20])
    asks = np.array([True, True, False, False])
    threshold, top, above = _threshold((asking, near, asks), margin=0.05)
    assert top == 0.50 and threshold == pytest.approx(0.56) and len(above) == 2
    threshold, top, _ = _threshold((asking, near, asks), margin=-1.0)  # no margin: the threshold alone stops it
    assert top == 0.75 and threshold == pytest.approx(0.775)
