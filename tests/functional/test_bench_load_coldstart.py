"""`focal bench load` and `focal bench coldstart` run and report what they promise."""

from __future__ import annotations

import os
import re
from pathlib import Path

from focal.cli.bench_coldstart import FUNCTIONS, measure
from focal.cli.main import main

AGENT = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


def test_bench_load_reports_throughput_latency_and_no_lost_or_duplicated_turns(capsys):
    assert main(["bench", "load", str(AGENT), "--conversations", "3", "--turns", "2"]) == 0
    out = capsys.readouterr().out
    assert "3 concurrent conversations × 2 turns = 6 turns" in out
    assert re.search(r"throughput\s+\d+\.\d turns/s", out) and "latency p95" in out
    for line in ("failed answers         0", "lost turns             0", "duplicated             0"):
        assert line in out, out


def test_a_stage_without_the_models_layer_starts_without_model_files(tmp_path):
    """route/tools/generate/persist run without the ONNX models layer: building their ports must not
    load (or even find) the model; the embedding stages load it on their first embedding."""
    env = {**os.environ, "PYTHONPATH": str(FUNCTIONS), "FOCAL_CONFIG_SOURCE": "file", "FOCAL_STORE": "sqlite",
           "FOCAL_AGENT_FILE": str(AGENT), "FOCAL_DB_PATH": str(tmp_path / "c.db"),
           "FOCAL_MODEL_DIR": str(tmp_path / "no-models-layer"), "HF_HUB_OFFLINE": "1"}
    route = measure("handlers.route", embeds=False, env=env)
    assert route["import"] > 0 and route["init"] > 0 and route["onnx"] is None


def test_bench_coldstart_prints_every_stage_handler(monkeypatch, capsys):
    import focal.cli.bench_coldstart as bench

    calls = []

    def fake_measure(module, embeds, env):  # the subprocess probe is tested above; here the table
        calls.append((module, embeds))
        return {"import": 10.0, "init": 5.0, "onnx": 100.0 if embeds else None}

    monkeypatch.setattr(bench, "measure", fake_measure)
    assert main(["bench", "coldstart", str(AGENT)]) == 0
    out = capsys.readouterr().out
    assert [m for m, _ in calls] == [f"handlers.{s}" for s in
                                     ("sensor", "retrieve", "route", "tools", "generate", "enforce", "persist", "fallback")]
    assert {m for m, e in calls if e} == {"handlers.sensor", "handlers.retrieve", "handlers.enforce"}
    assert re.search(r"sensor\s+10\s+5\s+15\s+100\s+115", out) and re.search(r"route\s+10\s+5\s+15\s+–\s+–", out)
