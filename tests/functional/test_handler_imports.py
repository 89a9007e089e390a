"""A stage function's init imports only what its init needs: no handler imports litellm (seconds of CPU)
at import or when it builds its ports, even with a model configured; litellm comes with the first model call.
Nor numpy, onnxruntime or tokenizers: they load with the first embedding or index search.
(SnapStart's snapshot init imports them on purpose: focal.prime, with FOCAL_PRIME / snap-start.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from focal.turn.definition import STAGE_NAMES

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "retail" / "agent.yaml"
PROBE = """
import json, sys, threading
import handlers.{name}
from focal.wiring import deps_from_env
deps_from_env()  # what the first invocation builds
for thread in threading.enumerate():  # a background import would land here
    if thread is not threading.current_thread():
        thread.join(timeout=600)
print(json.dumps(sorted(m for m in ("litellm", "openai", "numpy", "onnxruntime", "tokenizers") if m in sys.modules)))
"""


@pytest.mark.parametrize("name", [*STAGE_NAMES, "fallback"])
def test_a_stage_handler_and_its_ports_do_not_import_litellm_with_a_model_configured(name, tmp_path):
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("FOCAL_", "PYTHON", "AWS_LAMBDA_")) and k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    env = {**keep, "PYTHONPATH": str(ROOT / "functions"), "FOCAL_MODEL": "openai/x", "FOCAL_CONFIG_SOURCE": "file",
           "FOCAL_STORE": "sqlite", "FOCAL_AGENT_FILE": str(AGENT), "FOCAL_DB_PATH": str(tmp_path / "f.db"),
           "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run([sys.executable, "-c", PROBE.format(name=name)], env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert not loaded & {"litellm", "openai"}, f"handlers.{name} imported litellm at init"
    assert not loaded & {"numpy", "onnxruntime", "tokenizers"}, f"handlers.{name} imported {sorted(loaded)} at init"


def test_the_lazy_embedder_states_minilm_dimension():
    from focal.adapters.lazy import LazyEmbedder
    from focal.adapters.onnx_embedder import OnnxEmbedder

    assert LazyEmbedder.dimension == OnnxEmbedder.dimension
