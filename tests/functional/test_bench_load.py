"""`focal bench load` runs and reports what it promises (`focal bench coldstart`: test_bench_coldstart.py)."""

from __future__ import annotations

import re
from pathlib import Path

from focal.main import main

AGENT = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


def test_bench_load_reports_throughput_latency_and_no_lost_or_duplicated_turns(capsys):
    assert main(["bench", "load", str(AGENT), "--conversations", "3", "--turns", "2"]) == 0
    out = capsys.readouterr().out
    assert "3 concurrent conversations × 2 turns = 6 turns" in out
    assert re.search(r"throughput\s+\d+\.\d turns/s", out) and "latency p95" in out
    for line in ("failed answers         0", "lost turns             0", "duplicated             0"):
        assert line in out, out
