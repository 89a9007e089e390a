"""`focal bench draftspeed` (focal/bench/draft_speed.py) runs and prints its figures; timings are never asserted."""

from __future__ import annotations

import re

from focal.bench import draft_speed


def test_the_drafts_have_the_sizes_asked_and_the_run_on_shape_has_no_sentence_end():
    for size in (1024, 4096):
        prose, run_on = draft_speed.draft(size), draft_speed.draft(size, "run-on")
        assert size - 40 <= len(prose) <= size and "$75" in prose and "A1002" in prose
        assert not re.search(r"[.;!?]\s", run_on) and "\n" not in run_on


def test_the_bench_prints_reading_and_lane_one_figures_for_each_shape_and_size(capsys):
    assert draft_speed.main(["--sizes", "512,1024", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith(("prose", "run-on"))]
    assert [(r[0], int(r[1]) <= size) for r, size in zip(rows, (512, 1024, 512, 1024))] == [
        ("prose", True), ("prose", True), ("run-on", True), ("run-on", True)]
    for row in rows:
        figures = [float(x) for x in row[2:8]]  # reading p50, best, per KB; lane 1 p50, best, per KB
        assert all(f >= 0 for f in figures) and figures[0] > 0


def test_an_unknown_shape_is_refused(capsys):
    assert draft_speed.main(["--shapes", "poetry"]) == 2
    assert "--shapes" in capsys.readouterr().err
