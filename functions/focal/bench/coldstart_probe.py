"""One fresh interpreter per measurement: a function's handler imported (Lambda's init), then invoked once
on its stage's input. CPU time (user + system, every thread of the process), never wall time.

The probe waits for the threads the handler left running (a background import still costs the function
CPU) and reports that apart. No fixed timeout ends a measurement: a loaded machine only makes it slower.
`timeout_s` is a guard the caller may set; when it fires, the error says which function and which phase.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from focal.bench.coldstart_layout import Function, Layout

WATCH = ("litellm", "onnxruntime", "tokenizers", "numpy", "boto3")
PROBE = r"""
import json, os, resource, sys, threading
sys.path[:0] = json.loads(os.environ["FOCAL_BENCH_SYS_PATH"])

def cpu_ms():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (usage.ru_utime + usage.ru_stime) * 1000

WATCH = {watch!r}
out = {{"startup": cpu_ms(), "error": None, "first": 0.0}}
started = cpu_ms()
import importlib
handler = importlib.import_module(os.environ["FOCAL_BENCH_MODULE"]).handler
out["init"] = cpu_ms() - started
out["after_init"] = [m for m in WATCH if m in sys.modules]
if os.environ.get("FOCAL_BENCH_EVENT"):
    import types
    context = types.SimpleNamespace(function_name="bench", memory_limit_in_mb=1024, aws_request_id="bench",
                                    invoked_function_arn="arn:aws:lambda:us-east-1:000000000000:function:bench")
    with open(os.environ["FOCAL_BENCH_EVENT"], encoding="utf-8") as file:
        event = json.load(file)
    started = cpu_ms()
    try:
        handler(event, context)
    except Exception as exc:
        out["error"] = type(exc).__name__
    out["first"] = cpu_ms() - started
started = cpu_ms()
for thread in threading.enumerate():
    if thread is not threading.current_thread():
        thread.join()
out["background"] = cpu_ms() - started
out["loaded"] = [m for m in WATCH if m in sys.modules]
print("FOCAL_BENCH " + json.dumps(out), flush=True)
"""
LITELLM_PROBE = r"""
import json, os, resource, sys
sys.path[:0] = json.loads(os.environ["FOCAL_BENCH_SYS_PATH"])
usage = resource.getrusage(resource.RUSAGE_SELF)
started = (usage.ru_utime + usage.ru_stime) * 1000
from focal.adapters.litellm_model import _litellm
_litellm()
usage = resource.getrusage(resource.RUSAGE_SELF)
print("FOCAL_BENCH " + json.dumps({"import": (usage.ru_utime + usage.ru_stime) * 1000 - started}), flush=True)
"""

# The multilingual model's first use in a function (the first turn in another language): both files checked
# against their digests, the weights loaded, one message embedded. CPU ms of each part.
MULTILINGUAL_PROBE = r"""
import json, os, resource, sys
sys.path[:0] = json.loads(os.environ["FOCAL_BENCH_SYS_PATH"])
def cpu_ms():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (usage.ru_utime + usage.ru_stime) * 1000
import numpy
from focal.adapters import use_files
from focal.adapters.use_embedder import UseEmbedder
out, started = {}, cpu_ms()
use_files.model_paths()
out["digests"] = cpu_ms() - started
embedder, started = UseEmbedder(), cpu_ms()
embedder._loaded()
out["load"] = cpu_ms() - started
started = cpu_ms()
embedder.embed(["Quiero renovar un libro"])
out["embed"] = cpu_ms() - started
print("FOCAL_BENCH " + json.dumps(out), flush=True)
"""


class ProbeFailed(Exception):
    """A measurement that did not finish: the message names the function, the phase and why."""


@dataclass(frozen=True)
class Scenario:
    """The deployment the probes imitate (the stack's environment, with local stand-ins)."""

    agent_file: Path
    folder: Path  # databases and events
    model: str | None  # FOCAL_MODEL, e.g. openai/bench
    model_port: int | None = None  # a refused loopback port the provider's base URL points at

    def env(self, layout: Layout, function: Function, snap_start: bool, run: str) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("FOCAL_", "PYTHON", "OPENAI_", "LITELLM_"))}
        env = {**keep, "FOCAL_BENCH_SYS_PATH": json.dumps(layout.sys_path(function)),
               "FOCAL_BENCH_MODULE": function.module, "FOCAL_STAGE": function.name,
               "FOCAL_CONFIG_SOURCE": "file", "FOCAL_STORE": "sqlite", "FOCAL_AGENT_FILE": str(self.agent_file),
               "FOCAL_DB_PATH": str(self.folder / f"{run}.db"), "HF_HUB_OFFLINE": "1",
               # as the stack sets them for every function
               "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENBLAS_NUM_THREADS": "1",
               "POWERTOOLS_SERVICE_NAME": "focal", "POWERTOOLS_METRICS_NAMESPACE": "bench"}
        if layout.model_dir() and "models" in function.layers:
            env["FOCAL_MODEL_DIR"] = layout.model_dir() or ""
        if self.model:
            base = f"http://127.0.0.1:{self.model_port}/v1"  # nothing listens: every call is refused at once
            env.update({"FOCAL_MODEL": self.model, "OPENAI_API_KEY": "bench-not-a-key", "OPENAI_BASE_URL": base,
                        "OPENAI_API_BASE": base})
        if snap_start:
            env["FOCAL_PRIME"] = "1"  # the handler primes at import, as at SnapStart's snapshot init
        return env


@contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port bound but not listening: a model call gets 'connection refused' at once, locally."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])
    finally:
        sock.close()


def run_probe(command: tuple[str, ...], code: str, env: dict[str, str], what: str,
              timeout_s: float | None = None) -> dict[str, Any]:
    try:
        done = subprocess.run([*command, "-c", code], env=env, capture_output=True, text=True, timeout=timeout_s,
                              check=False)
    except subprocess.TimeoutExpired:
        raise ProbeFailed(f"{what}: did not finish within the {timeout_s:.0f} s guard (--timeout); "
                          "the machine may be loaded, raise or drop the guard") from None
    line = next((x for x in reversed(done.stdout.splitlines()) if x.startswith("FOCAL_BENCH ")), None)
    if done.returncode != 0 or line is None:
        tail = " | ".join(done.stderr.strip().splitlines()[-3:]) or "no output"
        raise ProbeFailed(f"{what}: the probe exited with status {done.returncode}: {tail}")
    result: dict[str, Any] = json.loads(line.removeprefix("FOCAL_BENCH "))
    return result


def measure(layout: Layout, function: Function, scenario: Scenario, *, snap_start: bool, event: str | None,
            timeout_s: float | None = None) -> dict[str, Any]:
    """Import the handler (init), then one invocation on `event` (the first call), in a fresh interpreter."""
    mode = "snapstart" if snap_start else "on-demand"
    env = scenario.env(layout, function, snap_start, f"{function.name}-{mode}")
    if event:
        env["FOCAL_BENCH_EVENT"] = event
    return run_probe(layout.command, PROBE.format(watch=WATCH), env, f"{function.name} ({mode})", timeout_s)


def measure_multilingual(layout: Layout, function: Function, scenario: Scenario, weights: Path,
                         timeout_s: float | None = None) -> dict[str, float]:
    """The multilingual model's first use on `function`'s path: the tokenizer from the models layer as built, the
    weights from a local file in place of the S3 object (the fetch itself is an assumed cost)."""
    from focal.adapters.use_files import ENV, KNOWN_SHA256, TOKENIZER, WEIGHTS

    env = scenario.env(layout, function, False, "multilingual")
    model_dir = layout.model_dir()
    tokenizer = Path(model_dir) / "use" / TOKENIZER if model_dir else weights.parent / TOKENIZER
    env[ENV] = json.dumps({WEIGHTS: {"source": str(weights), "sha256": KNOWN_SHA256[WEIGHTS]},
                           TOKENIZER: {"source": str(tokenizer), "sha256": KNOWN_SHA256[TOKENIZER]}})
    found = run_probe(layout.command, MULTILINGUAL_PROBE, env, f"multilingual model ({function.name})", timeout_s)
    return {k: float(v) for k, v in found.items()}


def measure_litellm(layout: Layout, function: Function, scenario: Scenario, timeout_s: float | None = None) -> float:
    """litellm's import alone, on `function`'s path (for the report: what a first model call pays)."""
    env = scenario.env(layout, function, False, "litellm")
    return float(run_probe(layout.command, LITELLM_PROBE, env, f"litellm import ({function.name})", timeout_s)["import"])
