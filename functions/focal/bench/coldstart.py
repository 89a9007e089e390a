"""`focal bench coldstart`: a Lambda-equivalent cold-start estimate per stage function and per cold turn.

Per stage, a fresh interpreter (1) imports the handler module (Lambda's init), (2) primes it as the
first invocation would (focal.pipeline.prime: ports, the stage module, MiniLM + one embedding for the
stages with the models layer) and (3) runs the handler once on that stage's input from a real local
turn (per-agent work: intent index, caches). litellm's import is measured once in its own interpreter
and charged to the model-calling stages. All in process CPU time, twice: without bytecode (`-B`,
PYTHONDONTWRITEBYTECODE=1 and an empty PYTHONPYCACHEPREFIX: every module compiled from source, as on
read-only layers without .pyc) and with .pyc. Scaled to each function's CPU share (1 vCPU at 1,769 MB),
with the memory sizes read from infra/focal_infra/stack.py.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from focal.pipeline.definition import STAGES

FUNCTIONS = Path(__file__).resolve().parents[2]
ROOT = FUNCTIONS.parent
STACK = ROOT / "infra" / "focal_infra" / "stack.py"
FULL_CPU_MB = 1769  # Lambda: one vCPU at 1,769 MB, CPU share proportional below it
RESTORE_S = 0.5  # SnapStart restore per function (AWS: a few hundred ms; 0.3-0.6 s assumed)
PLATFORM_S = 0.15  # sandbox + runtime start per function without SnapStart (not CPU-bound, not measured)
TURN_LIMIT_S = 8.0
DEFAULT_MEMORY = {"sensor": 1024, "retrieve": 1024, "route": 512, "tools": 512, "generate": 1024, "enforce": 1024,
                  "persist": 512, "fallback": 512}
PROBE = """
import json, sys
from focal.pipeline.prime import cpu_ms
c0 = cpu_ms()
import importlib
handler = importlib.import_module({module!r}).handler
c1 = cpu_ms()
from focal.pipeline.prime import prime
parts = prime({stage!r}, embed={embeds!r}, llm=False)
c2 = cpu_ms()
first = 0.0
if {event!r}:
    import types
    ctx = types.SimpleNamespace(function_name={stage!r}, memory_limit_in_mb=1024, aws_request_id="bench",
                                invoked_function_arn="arn:aws:lambda:us-east-1:0:function:bench")
    event = json.load(open({event!r}))
    try:
        handler(event, ctx)
    except Exception:
        pass
    first = cpu_ms() - c2
print("FOCAL_BENCH " + json.dumps({{"startup": c0, "import": c1 - c0, "prime": c2 - c1, "onnx": parts.get("onnx"),
                                  "first": first}}))
"""
LITELLM_PROBE = """
from focal.pipeline.prime import cpu_ms
c0 = cpu_ms()
from focal.adapters.litellm_model import warm_up
warm_up(background=False)
print("FOCAL_BENCH " + str(cpu_ms() - c0))
"""


def memory_sizes(stack: Path = STACK) -> tuple[dict[str, int], str]:
    """Each stage function's memory (the first argument of its FunctionProfile), read without importing CDK."""
    sizes = dict(DEFAULT_MEMORY)
    try:
        tree = ast.parse(stack.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return sizes, "built-in table (infra/focal_infra/stack.py not found)"
    for node in ast.walk(tree):
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else getattr(node, "target", None)
        name = getattr(target, "id", None)
        value = getattr(node, "value", None)
        if name == "PROFILES" and isinstance(value, ast.Dict):
            for key, call in zip(value.keys, value.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(call, ast.Call) and call.args:
                    sizes[str(key.value)] = int(ast.literal_eval(call.args[0]))
        elif name == "FALLBACK_PROFILE" and isinstance(value, ast.Call) and value.args:
            sizes["fallback"] = int(ast.literal_eval(value.args[0]))
    return sizes, str(stack.relative_to(ROOT)) if stack.is_relative_to(ROOT) else str(stack)


def model_stages() -> frozenset[str]:
    """The stages that may call a model, as the infra derives them from the code (else the known four)."""
    try:
        sys.path.insert(0, str(ROOT / "infra"))
        from focal_infra.model_stages import model_calling_stages

        return frozenset(model_calling_stages())
    except Exception:  # noqa: BLE001 - infra/ is not shipped with the functions
        return frozenset({"sensor", "route", "generate", "enforce"})
    finally:
        sys.path.remove(str(ROOT / "infra"))


def _run(code: str, env: dict[str, str], pyc: bool) -> str:
    args = [sys.executable, *([] if pyc else ["-B"]), "-c", code]
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, check=True)
    return next(line for line in reversed(out.stdout.splitlines()) if line.startswith("FOCAL_BENCH "))[12:]


def measure(stage: str, env: dict[str, str], pyc: bool, event: str | None = None) -> dict[str, float | None]:
    module = "handlers.fallback" if stage == "fallback" else f"handlers.{stage}"
    code = PROBE.format(module=module, stage=stage, embeds=stage in {"sensor", "retrieve", "enforce"}, event=event)
    return json.loads(_run(code, env, pyc))


def measure_litellm(env: dict[str, str], pyc: bool) -> float:
    return float(_run(LITELLM_PROBE, env, pyc))


def stage_events(agent_path: str, folder: Path) -> dict[str, str]:
    """Each stage's input event from one real local turn (written to `folder`), for the first-invoke run."""
    from focal.models.turn import TurnRequest
    from focal.pipeline.definition import next_stage
    from focal.pipeline.stage_io import run_stage
    from focal.wiring import local_deps

    deps = local_deps(agent_path, folder / "events.db")
    request = TurnRequest(tenant_id="bench", agent_id=_agent_id(agent_path), session_id="bench", turn_id="bench-1",
                          message="What can you help me with?")
    event, files = {"request": request.model_dump(mode="json")}, {}
    stage: str | None = STAGES[0].name
    while stage is not None:
        if stage not in files:  # the first input of each stage (enforce may loop back to generate)
            path = folder / f"{stage}.json"
            path.write_text(json.dumps(event))
            files[stage] = str(path)
        event = run_stage(stage, event, deps)
        stage = next_stage(stage, (event.get("control") or {}).get("next"))
    return files


def _agent_id(agent_path: str) -> str:
    import yaml

    return str(yaml.safe_load(Path(agent_path).read_text(encoding="utf-8"))["id"])


def estimate(cpu_ms: float, memory_mb: int) -> float:
    return cpu_ms / 1000 * max(1.0, FULL_CPU_MB / memory_mb)


def coldstart(agent_path: str, with_model: bool = True) -> str:
    sizes, source = memory_sizes()
    calls = model_stages()
    names = [s.name for s in STAGES] + ["fallback"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "nopyc").mkdir()
        env = {**os.environ, "PYTHONPATH": str(FUNCTIONS), "FOCAL_CONFIG_SOURCE": "file", "FOCAL_STORE": "sqlite",
               "FOCAL_AGENT_FILE": str(Path(agent_path).resolve()), "FOCAL_DB_PATH": str(folder / "c.db"),
               "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENBLAS_NUM_THREADS": "1",
               "POWERTOOLS_METRICS_NAMESPACE": "bench"}
        env.pop("FOCAL_MODEL", None)
        # each mode its own database: a stage's first call must not find the other run's turn (idempotency)
        cold = {**env, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(folder / "nopyc"),
                "FOCAL_DB_PATH": str(folder / "nopyc.db")}
        events = stage_events(agent_path, folder)
        rows = {name: {"cold": measure(name, cold, False, events.get(name)), "pyc": measure(name, env, True, events.get(name))}
                for name in names}
        litellm = {"cold": measure_litellm(cold, False), "pyc": measure_litellm(env, True)} if with_model else None
    return report(rows, litellm, sizes, source, calls, agent_path)


def report(rows: dict[str, dict[str, dict]], litellm: dict[str, float] | None, sizes: dict[str, int], source: str,
           calls: frozenset[str], agent_path: str) -> str:
    lines = [f"focal bench coldstart: agent {agent_path}; memory from {source}; CPU ms in a fresh interpreter",
             f"{'function':<9}{'MB':>6}{'import':>8}{'prime':>7}{'1st call':>9}{'litellm':>8}"
             f"{'no .pyc s':>10}{'.pyc s':>8}{'SnapStart s':>12}"]
    turn = {"cold": 0.0, "pyc": 0.0, "snap": 0.0}
    turn_model = dict(turn)
    for name, row in rows.items():
        mem = sizes.get(name, DEFAULT_MEMORY.get(name, 1024))
        llm = litellm if litellm and name in calls else None
        est = {}
        for mode in ("cold", "pyc"):
            m = row[mode]
            cpu = m["startup"] + m["import"] + m["prime"] + m["first"]
            est[mode] = PLATFORM_S + estimate(cpu, mem)
            est[mode + "+llm"] = est[mode] + (estimate(llm[mode], mem) if llm else 0.0)
        est["snap"] = RESTORE_S + estimate(row["pyc"]["first"], mem)  # init (imports, models, litellm) restored
        c = row["cold"]
        lines.append(f"{name:<9}{mem:>6}{c['import']:>8.0f}{c['prime']:>7.0f}{c['first']:>9.0f}"
                     f"{(llm['cold'] if llm else 0):>8.0f}{est['cold+llm']:>10.1f}{est['pyc+llm']:>8.1f}{est['snap']:>12.1f}")
        if name != "fallback":  # the respond path: every stage once
            for mode in ("cold", "pyc"):
                turn[mode] += est[mode]
                turn_model[mode] += est[mode + "+llm"]
            turn["snap"] += est["snap"]
            turn_model["snap"] += est["snap"]
    lines.append("")
    lines.append(f"whole cold turn (sensor→persist, every function cold), target ≤ {TURN_LIMIT_S:.0f} s:")
    for label, t in (("offline (no model)", turn), ("with a model (litellm)", turn_model)):
        verdicts = [f"{k} {t[key]:.1f} s{' ✓' if t[key] <= TURN_LIMIT_S else ' ✗'}"
                    for k, key in (("no .pyc", "cold"), (".pyc", "pyc"), ("SnapStart", "snap"))]
        lines.append(f"  {label:<24}" + "   ".join(verdicts))
    lines += [
        "assumptions:",
        f"  - Lambda CPU share = memory / {FULL_CPU_MB} MB (1 vCPU at {FULL_CPU_MB} MB), same CPU speed as this machine;",
        "    CPU time measured (user + system), so waiting on the network or disk is not counted",
        f"  - without SnapStart: {PLATFORM_S} s sandbox and runtime start per function + interpreter start + handler import"
        " + priming work (ports, stage module, MiniLM + one embedding where the models layer is) + the first call",
        f"  - with SnapStart: {RESTORE_S} s restore per function (AWS quotes a few hundred ms) + the first call's work;"
        " assumes the handler primes at init (focal.pipeline.prime) and the layers ship .pyc",
        "  - 'no .pyc': -B, PYTHONDONTWRITEBYTECODE=1, empty PYTHONPYCACHEPREFIX (read-only layers without bytecode)",
        f"  - litellm's import charged to the stages that may call a model: {', '.join(sorted(calls))}",
        "  - the turn's own work (model calls, DynamoDB, OpenSearch) is not included",
    ]
    return "\n".join(lines)


def add_parser(bsub) -> None:
    s = bsub.add_parser("coldstart", help="Lambda-equivalent cold start per stage function and per turn")
    s.add_argument("agent", nargs="?", default="examples/retail/agent.yaml")
    s.add_argument("--no-model", action="store_true", help="skip litellm's import (offline deployments)")
    s.set_defaults(func=lambda args: print(coldstart(args.agent, not args.no_model)) or 0)
