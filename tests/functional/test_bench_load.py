"""`focal bench load` and `focal bench coldstart` run and report what they promise."""

from __future__ import annotations

import os
import re
from pathlib import Path

from focal.bench.coldstart import FUNCTIONS, _run, estimate, measure, memory_sizes
from focal.cli.main import main

AGENT = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


def test_bench_load_reports_throughput_latency_and_no_lost_or_duplicated_turns(capsys):
    assert main(["bench", "load", str(AGENT), "--conversations", "3", "--turns", "2"]) == 0
    out = capsys.readouterr().out
    assert "3 concurrent conversations × 2 turns = 6 turns" in out
    assert re.search(r"throughput\s+\d+\.\d turns/s", out) and "latency p95" in out
    for line in ("failed answers         0", "lost turns             0", "duplicated             0"):
        assert line in out, out


def test_a_stage_without_the_models_layer_starts_without_model_files_or_onnxruntime(tmp_path):
    """route/tools/generate/persist run without the ONNX models layer: building their ports must not
    load (or even find) the model, nor import onnxruntime or tokenizers; measured without .pyc."""
    env = {**os.environ, "PYTHONPATH": str(FUNCTIONS), "FOCAL_CONFIG_SOURCE": "file", "FOCAL_STORE": "sqlite",
           "FOCAL_AGENT_FILE": str(AGENT), "FOCAL_DB_PATH": str(tmp_path / "c.db"),
           "FOCAL_MODEL_DIR": str(tmp_path / "no-models-layer"), "HF_HUB_OFFLINE": "1",
           "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(tmp_path / "nopyc")}
    route = measure("route", env, pyc=False)
    assert route["import"] > 0 and route["prime"] > 0 and route["onnx"] is None and route["first"] == 0.0
    code = ("import sys, handlers.route; from focal.pipeline.prime import prime; prime('route', llm=False); "
            "print('FOCAL_BENCH', sorted(m for m in ('onnxruntime', 'tokenizers', 'litellm') if m in sys.modules))")
    assert _run(code, env, pyc=True) == "[]"


def test_memory_sizes_come_from_the_stack_definition(tmp_path):
    stack = tmp_path / "stack.py"
    stack.write_text('PROFILES: dict = {"sensor": FunctionProfile(1536, 20, models=True), "route": FunctionProfile(768, 10)}\n'
                     "FALLBACK_PROFILE = FunctionProfile(256, 10)\n")
    sizes, _ = memory_sizes(stack)
    assert sizes["sensor"] == 1536 and sizes["route"] == 768 and sizes["fallback"] == 256 and sizes["tools"] == 512
    assert estimate(1000.0, 1769) == 1.0 and estimate(1000.0, 3538) == 1.0 and round(estimate(1000.0, 512), 2) == 3.46


def test_bench_coldstart_prints_lambda_estimates_per_stage_and_turn(monkeypatch, capsys):
    import focal.bench.coldstart as bench

    calls = []

    def fake_measure(stage, env, pyc, event=None):  # the subprocess probe is tested above; here the table
        calls.append((stage, pyc, event is not None))
        scale = 1.0 if pyc else 2.0
        return {"startup": 20.0, "import": 100.0 * scale, "prime": 200.0 * scale, "onnx": None, "first": 50.0}

    monkeypatch.setattr(bench, "measure", fake_measure)
    monkeypatch.setattr(bench, "measure_litellm", lambda env, pyc: 4000.0 if pyc else 8000.0)
    path = ("sensor", "retrieve", "route", "tools", "generate", "enforce", "persist")
    monkeypatch.setattr(bench, "stage_events", lambda agent, folder: {s: "x" for s in path})
    monkeypatch.setattr(bench, "memory_sizes", lambda: ({**bench.DEFAULT_MEMORY, "sensor": 1769}, "test"))
    assert main(["bench", "coldstart", str(AGENT)]) == 0
    out = capsys.readouterr().out
    stages = ("sensor", "retrieve", "route", "tools", "generate", "enforce", "persist", "fallback")
    assert [s for s, pyc, _ in calls if not pyc] == list(stages) and [s for s, pyc, _ in calls if pyc] == list(stages)
    # sensor at 1769 MB: 0.15 + (20 + 100 + 200 + 50) ms = 0.52 s with .pyc, 0.82 s without, + litellm 4 s; SnapStart 0.5 + 0.05
    assert re.search(r"sensor\s+1769\s+200\s+400\s+50\s+8000\s+8\.8\s+4\.5\s+0\.6", out), out
    assert "whole cold turn" in out and "SnapStart" in out and "assumptions:" in out and "1769 MB" in out
    assert re.search(r"offline \(no model\).*SnapStart \d+\.\d s ✓", out)
