"""`focal bench coldstart`: each stage function's cold start, measured where it can be and assumed where not.

Each function runs in fresh interpreters laid out as Lambda lays it out (default): the code asset and
only the layers the stack attaches to it, built by layers/build.py, bytecode as shipped, run by a
CPython 3.12 with `-I -S -B` (`--venv`: this interpreter and environment instead). Twice per function:
without SnapStart (import the handler, then one invocation on its stage's input from a real local turn)
and with it (the handler primes at import as at the snapshot's init; then the first invocation). With a
model (FOCAL_MODEL=openai/bench, the default) every model call is refused by a loopback port at once, so
litellm's import is paid exactly where a first call needs it, and nothing leaves the machine.

The report (focal.bench.coldstart_report) keeps what was measured (CPU ms here) apart from what is
assumed (CPU share per memory size, platform start, SnapStart restore) and names each assumption's source.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from focal.bench.coldstart_layout import DEFAULT_ASSETS, Function, Layout, functions_from_stack, lambda_layout, venv_layout
from focal.bench.coldstart_probe import (
    ProbeFailed,
    Scenario,
    measure,
    measure_litellm,
    measure_multilingual,
    refused_port,
)
from focal.bench.coldstart_report import Assumptions, Row, report
from focal.turn.definition import STAGES

BENCH_MODEL = "openai/bench"


def stage_events(agent_path: str, folder: Path) -> dict[str, str]:
    """Each stage's input event from one real local turn (written to `folder`), for the first-invoke run."""
    from focal.models.turn import TurnRequest
    from focal.pipeline.stage_io import run_stage
    from focal.turn.definition import next_stage
    from focal.wiring import local_deps

    deps = local_deps(agent_path, folder / "events.db")
    request = TurnRequest(tenant_id="bench", agent_id=_agent_id(agent_path), session_id="bench", turn_id="bench-1",
                          message="What can you help me with?")
    event, files = {"request": request.model_dump(mode="json")}, {}
    stage: str | None = STAGES[0].name
    while stage is not None:
        if stage not in files:  # the first input of each stage (enforce may loop back to generate)
            path = folder / f"{stage}.json"
            # without the turn's deadline: run minutes later, the probe would find the budget spent and skip the model
            path.write_text(json.dumps({**event, "deadline": None}))
            files[stage] = str(path)
        event = run_stage(stage, event, deps)
        stage = next_stage(stage, (event.get("control") or {}).get("next"))
    return files


def _agent_id(agent_path: str) -> str:
    import yaml

    return str(yaml.safe_load(Path(agent_path).read_text(encoding="utf-8"))["id"])


def _say(message: str) -> None:
    print(f"focal bench coldstart: {message}", file=sys.stderr, flush=True)


def measure_rows(layout: Layout, functions: list[Function], scenario: Scenario, events: dict[str, str],
                 timeout_s: float | None = None) -> list[Row]:
    """Both probes of every function; a probe that fails or hits the guard leaves its row incomplete."""
    rows = []
    for function in functions:
        row = Row(function)
        for snap in (False, True) if function.snap_start else (False,):
            _say(f"{function.name} ({'SnapStart' if snap else 'on demand'}) …")
            try:
                result = measure(layout, function, scenario, snap_start=snap, event=events.get(function.name),
                                 timeout_s=timeout_s)
            except ProbeFailed as exc:
                row.failures.append(str(exc))
                _say(f"not measured: {exc}")
                continue
            if snap:
                row.snap = result
            else:
                row.on_demand = result
        rows.append(row)
    return rows


def coldstart(agent_path: str, *, model: str | None = BENCH_MODEL, venv: bool = False,
              assets: Path = DEFAULT_ASSETS, timeout_s: float | None = None,
              assumed: Assumptions | None = None) -> str:
    functions, source = functions_from_stack()
    layout = venv_layout() if venv else lambda_layout(assets)
    with tempfile.TemporaryDirectory() as tmp, refused_port() as port:
        folder = Path(tmp)
        events = stage_events(agent_path, folder)
        scenario = Scenario(agent_file=Path(agent_path).resolve(), folder=folder, model=model, model_port=port)
        rows = measure_rows(layout, functions, scenario, events, timeout_s)
        litellm_ms = None
        caller = next((f for f in functions if f.calls_models), None)
        if model and caller:
            try:
                litellm_ms = measure_litellm(layout, caller, scenario, timeout_s)
            except ProbeFailed as exc:
                _say(f"not measured: {exc}")
        multilingual = _multilingual(layout, functions, scenario, timeout_s)
    return report(rows, agent=agent_path, layout_label=layout.label, layout_notes=layout.notes, memory_source=source,
                  model=model, litellm_ms=litellm_ms, assumed=assumed or Assumptions(), multilingual=multilingual)


def _multilingual(layout: Layout, functions: list[Function], scenario: Scenario,
                  timeout_s: float | None) -> tuple[str, dict[str, float]] | None:
    """The multilingual model's first use in the sensor (retrieve pays the same), or None when not measurable."""
    from focal.adapters.use_files import WEIGHTS, UseModelUnavailable, package_folder

    sensor = next((f for f in functions if f.name == "sensor"), None)
    try:
        weights = package_folder() / "resources" / WEIGHTS  # the bytes the stack uploads as its S3 asset
    except UseModelUnavailable as exc:
        _say(f"multilingual model not measured: {exc}")
        return None
    if sensor is None:
        return None
    try:
        return sensor.name, measure_multilingual(layout, sensor, scenario, weights, timeout_s)
    except ProbeFailed as exc:
        _say(f"not measured: {exc}")
        return None


def add_parser(bsub) -> None:  # noqa: ANN001 - argparse's subparsers action
    s = bsub.add_parser("coldstart", help="cold start per stage function and per turn: measured vs assumed")
    s.add_argument("agent", nargs="?", default="examples/retail/agent.yaml")
    s.add_argument("--no-model", action="store_true", help="no FOCAL_MODEL (an offline deployment)")
    s.add_argument("--model", default=BENCH_MODEL, help="FOCAL_MODEL of the measured functions (an openai/ name: "
                                                        "its calls are refused locally)")
    s.add_argument("--venv", action="store_true", help="measure in this interpreter and environment instead of "
                                                       "the Lambda layout (no python3.12 or layer build needed)")
    s.add_argument("--assets", type=Path, default=DEFAULT_ASSETS, help="where the Lambda layout is built and reused")
    s.add_argument("--timeout", type=float, default=None,
                   help="guard in seconds per probe (none by default: a loaded machine is only slower)")
    s.add_argument("--restore-s", type=float, default=Assumptions.restore_s, help="assumed SnapStart restore")
    s.add_argument("--platform-s", type=float, default=Assumptions.platform_s,
                   help="assumed platform start per function without SnapStart")

    def run(args) -> int:  # noqa: ANN001
        print(coldstart(args.agent, model=None if args.no_model else args.model, venv=args.venv, assets=args.assets,
                        timeout_s=args.timeout, assumed=Assumptions(args.restore_s, args.platform_s)))
        return 0

    s.set_defaults(func=run)
