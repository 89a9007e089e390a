"""`focal bench coldstart`: import and init time of each stage handler in a fresh process, as a
Lambda cold start pays it, with and without the ONNX models layer.

Per handler, a new interpreter: (1) import the handler module, (2) build its ports from the
FOCAL_* environment (`deps_from_env`; the embedder is lazy), (3) for the stages that embed (their
functions carry the models layer), load MiniLM with the first embedding. "Without ONNX" is what a
function without the models layer pays: (1) + (2).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from focal.pipeline.definition import FALLBACK_HANDLER, STAGES

FUNCTIONS = Path(__file__).resolve().parents[2]
EMBEDDING_STAGES = {"sensor", "retrieve", "enforce"}  # the functions that carry the models layer
PROBE = """
import json, time
t0 = time.perf_counter()
import importlib
importlib.import_module({module!r})
t1 = time.perf_counter()
from focal.wiring import deps_from_env
deps = deps_from_env()
t2 = time.perf_counter()
onnx = None
if {embeds!r}:
    deps.embedder.embed(["warm up"])
    onnx = (time.perf_counter() - t2) * 1000
print(json.dumps({{"import": (t1 - t0) * 1000, "init": (t2 - t1) * 1000, "onnx": onnx}}))
"""


def measure(module: str, embeds: bool, env: dict[str, str]) -> dict[str, float | None]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(module=module, embeds=embeds)], env=env,
                         capture_output=True, text=True, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def coldstart(agent_path: str, repeat: int = 1) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(FUNCTIONS), "FOCAL_CONFIG_SOURCE": "file", "FOCAL_STORE": "sqlite",
               "FOCAL_AGENT_FILE": str(Path(agent_path).resolve()), "FOCAL_DB_PATH": str(Path(tmp) / "c.db"),
               "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENBLAS_NUM_THREADS": "1"}
        handlers = [(s.name, s.handler) for s in STAGES] + [("fallback", FALLBACK_HANDLER)]
        lines = [f"focal bench coldstart: fresh interpreter per stage handler (best of {repeat}), agent {agent_path}",
                 f"{'handler':<10}{'import ms':>11}{'init ms':>9}{'without ONNX':>14}{'ONNX load ms':>14}{'with ONNX':>11}"]
        for name, handler in handlers:
            module = handler.rsplit(".", 1)[0]
            embeds = name in EMBEDDING_STAGES
            runs = [measure(module, embeds, env) for _ in range(repeat)]
            best = min(runs, key=lambda r: r["import"] + r["init"] + (r["onnx"] or 0))
            base = best["import"] + best["init"]
            onnx = f"{best['onnx']:.0f}" if best["onnx"] is not None else "–"
            total = f"{base + best['onnx']:.0f}" if best["onnx"] is not None else "–"
            lines.append(f"{name:<10}{best['import']:>11.0f}{best['init']:>9.0f}{base:>14.0f}{onnx:>14}{total:>11}")
        lines.append("(without ONNX: import + ports; with ONNX: + MiniLM session and tokenizer on the first embedding, "
                     "paid only by the functions with the models layer: sensor, retrieve, enforce)")
    return "\n".join(lines)


def add_parser(bsub) -> None:
    s = bsub.add_parser("coldstart", help="import + init time per stage handler, with and without the ONNX layer")
    s.add_argument("agent", nargs="?", default="examples/retail/agent.yaml")
    s.add_argument("--repeat", type=int, default=1)
    s.set_defaults(func=lambda args: print(coldstart(args.agent, args.repeat)) or 0)
