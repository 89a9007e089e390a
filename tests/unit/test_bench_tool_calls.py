"""`focal bench tools` runs and prints its figures (timings are printed, never asserted)."""

from __future__ import annotations

from focal.main import main


def test_focal_bench_tools_prints_each_figure(capsys):
    assert main(["bench", "tools", "--calls", "20", "--starts", "1"]) == 0
    out = capsys.readouterr().out
    for figure in ("start", "warm", "parallel", "replace", "memory"):
        assert f"  {figure} " in out, out
