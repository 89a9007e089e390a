"""`focal bench coldstart`: what it measured and what it assumes are reported apart, each assumption with its
source; a probe that does not finish is reported, never fatal, and no fixed timeout ends a measurement.
No figure is asserted: the probes run for real, their numbers depend on the machine."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import focal.bench.coldstart as bench
import focal.bench.coldstart_probe as probe
from focal.bench.coldstart_layout import Function, Layout, functions_from_stack, venv_layout
from focal.bench.coldstart_probe import Scenario
from focal.bench.coldstart_report import Assumptions, report
from focal.main import main

AGENT = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"
FAKE_HANDLER = '''
import json
STATE = {"calls": 0}

def handler(event, context):
    STATE["calls"] += 1
    return {"echo": json.dumps(event)[:20]}
'''


def _fake_asset(tmp_path: Path) -> tuple[Layout, Function, dict[str, str]]:
    """A tiny code asset (one handler, standard library only), run like the Lambda layout: -I -S -B."""
    code = tmp_path / "asset"
    (code / "handlers").mkdir(parents=True)
    (code / "handlers" / "__init__.py").write_text("")
    (code / "handlers" / "fake.py").write_text(FAKE_HANDLER)
    event = tmp_path / "fake.json"
    event.write_text('{"request": {"message": "hi"}}')
    layout = Layout(label="fake asset (test)", command=(sys.executable, "-I", "-S", "-B"), code=code, layer_paths={},
                    notes=("a test asset",))
    function = Function(name="fake", module="handlers.fake", memory_mb=512, layers=("deps",), snap_start=True,
                        calls_models=False)
    return layout, function, {"fake": str(event)}


def test_report_keeps_measured_and_assumed_apart_on_a_real_probe_run(tmp_path):
    layout, function, events = _fake_asset(tmp_path)
    scenario = Scenario(agent_file=AGENT, folder=tmp_path, model=None)
    rows = bench.measure_rows(layout, [function], scenario, events)
    assert rows[0].failures == []
    for result in (rows[0].on_demand, rows[0].snap):  # both probes ran: import, then one call
        assert result is not None and result["error"] is None
        assert {"startup", "init", "first", "background", "loaded"} <= set(result)
    out = report(rows, agent="fake", layout_label=layout.label, layout_notes=layout.notes, memory_source="test",
                 model=None, litellm_ms=None, assumed=Assumptions(restore_s=0.25, platform_s=0.1))
    lines = out.splitlines()
    measured = lines.index("measured on this machine (CPU ms, user + system, every thread; never wall time):")
    assumed = lines.index("assumed (not measurable on this machine), with sources:")
    assert measured < assumed
    assert "  where: fake asset (test)" in lines[measured:assumed] and "  note: a test asset" in lines[measured:assumed]
    assumptions = [line for line in lines[assumed + 1:] if line.startswith("  - ")]
    assert len(assumptions) == 4 and all("source:" in line for line in assumptions)
    assert any("0.25 s per function" in line for line in assumptions)
    assert any("0.10 s per function" in line for line in assumptions)
    row = next(line for line in lines if line.startswith("fake "))
    assert "n/a" not in row and "512 deps" in row
    # every total is split into its measured and its assumed part, the assumed part with what it is made of
    assert re.search(r"without SnapStart\s+\d+\.\d s = measured \d+\.\d s CPU here → \d+\.\d s at the share "
                     r"\+ assumed 0\.10 s \(1 × 0\.10 s platform start\)", out), out
    assert re.search(r"with SnapStart\s+\d+\.\d s = measured \d+\.\d s CPU here → \d+\.\d s at the share "
                     r"\+ assumed 0\.25 s \(1 × 0\.25 s restore\)", out), out


def test_no_fixed_timeout_and_a_probe_that_hits_the_guard_is_reported_not_fatal(tmp_path, monkeypatch):
    layout, function, events = _fake_asset(tmp_path)
    scenario = Scenario(agent_file=AGENT, folder=tmp_path, model=None)
    seen = []

    def loaded_machine(args, **kwargs):
        seen.append(kwargs.get("timeout"))
        raise subprocess.TimeoutExpired(args, kwargs.get("timeout") or 0)

    monkeypatch.setattr(probe.subprocess, "run", loaded_machine)
    rows = bench.measure_rows(layout, [function], scenario, events, timeout_s=30.0)
    assert seen == [30.0, 30.0] and rows[0].on_demand is None and rows[0].snap is None
    assert any("fake (on-demand)" in f and "30 s guard" in f for f in rows[0].failures), rows[0].failures
    out = report(rows, agent="fake", layout_label=layout.label, layout_notes=(), memory_source="test", model=None,
                 litellm_ms=None, assumed=Assumptions())
    assert "not measured: fake (on-demand)" in out and "incomplete" in out

    seen.clear()
    monkeypatch.setattr(probe.subprocess, "run", lambda args, **kw: seen.append(kw.get("timeout")) or
                        subprocess.CompletedProcess(args, 0, 'FOCAL_BENCH {"startup": 1, "init": 1, "first": 0}', ""))
    bench.measure_rows(layout, [function], scenario, events)
    assert seen == [None, None]  # by default nothing ends a measurement


def test_functions_and_layers_come_from_the_stack_definition(tmp_path):
    stack = tmp_path / "stack.py"
    stack.write_text(
        "PROFILES: dict = {\n"
        '  "sensor": FunctionProfile(1536, 20, models=True, snap_start=True),\n'
        '  "retrieve": FunctionProfile(1024, 10, models=True),\n'
        '  "route": FunctionProfile(512, 10, snap_start=True),\n'
        '  "tools": FunctionProfile(512, 20), "generate": FunctionProfile(1024, 25),\n'
        '  "enforce": FunctionProfile(1536, 25, models=True), "persist": FunctionProfile(512, 10)}\n'
        "FALLBACK_PROFILE = FunctionProfile(256, 10)\n")
    functions, _ = functions_from_stack(stack)
    by_name = {f.name: f for f in functions}
    assert list(by_name) == ["sensor", "retrieve", "route", "tools", "generate", "enforce", "persist", "fallback"]
    assert by_name["sensor"].layers == ("deps", "auth", "models", "llm") and by_name["sensor"].snap_start
    assert by_name["retrieve"].layers == ("deps", "auth", "models") and not by_name["retrieve"].snap_start
    assert by_name["tools"].layers == ("deps", "auth") and by_name["fallback"].memory_mb == 256
    assert by_name["route"].calls_models and by_name["route"].memory_mb == 1024  # a model caller gets 1,024 MB at least


def test_a_stage_without_models_or_model_calls_starts_without_onnxruntime_or_litellm(tmp_path):
    """tools runs without the ONNX models layer and calls no model: its handler's init, primed as at a
    snapshot, must not load the model, nor import onnxruntime, tokenizers or litellm (installed here)."""
    tools = next(f for f in functions_from_stack()[0] if f.name == "tools")
    scenario = Scenario(agent_file=AGENT, folder=tmp_path, model="openai/x", model_port=9)
    result = probe.measure(venv_layout(), tools, scenario, snap_start=True, event=None)
    assert result["error"] is None and result["first"] == 0.0
    assert not {"onnxruntime", "tokenizers", "litellm"} & set(result["loaded"]), result["loaded"]


def test_bench_coldstart_prints_every_function_and_both_turn_totals(monkeypatch, capsys):
    calls = []

    def fake_measure(layout, function, scenario, *, snap_start, event, timeout_s=None):
        calls.append((function.name, snap_start, event is not None, scenario.model))
        return {"startup": 20.0, "init": 300.0, "first": 50.0, "background": 0.0, "loaded": [], "error": None}

    monkeypatch.setattr(bench, "measure", fake_measure)
    monkeypatch.setattr(bench, "measure_litellm", lambda *a, **k: 4000.0)
    monkeypatch.setattr(bench, "lambda_layout", lambda folder: venv_layout())  # no layer build in a test
    path = ("sensor", "retrieve", "route", "tools", "generate", "enforce", "persist")
    monkeypatch.setattr(bench, "stage_events", lambda agent, folder: {s: "x" for s in path})
    assert main(["bench", "coldstart", str(AGENT)]) == 0
    out = capsys.readouterr().out
    stages = (*path, "fallback")
    assert [c[0] for c in calls if not c[1]] == list(stages) and all(c[3] == "openai/bench" for c in calls)
    for name in stages:
        assert re.search(rf"^{name}\s+\d+ deps", out, re.M), out
    assert "litellm's import alone: 4000 ms" in out
    assert re.search(r"without SnapStart .*= measured .*\+ assumed", out) and re.search(r"with SnapStart .*✓", out)


def test_bench_coldstart_without_a_model_sets_none(monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(bench, "measure", lambda layout, function, scenario, **kw: seen.append(scenario.model) or
                        {"startup": 1.0, "init": 1.0, "first": 1.0})
    monkeypatch.setattr(bench, "lambda_layout", lambda folder: venv_layout())
    monkeypatch.setattr(bench, "stage_events", lambda agent, folder: {})
    assert main(["bench", "coldstart", str(AGENT), "--no-model"]) == 0
    assert set(seen) == {None} and "model none (offline)" in capsys.readouterr().out
