"""SnapStart's snapshot init loads the multilingual model in the functions the stack gives its files
(FOCAL_USE_FILES: sensor and retrieve), so a restored function's first turn in another language does not pay the
fetch and load; a function without the variable does not load it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from focal.adapters.use_files import ENV, sources

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "tutorial" / "agent.yaml"
PROBE = """
import json, sys
from focal.prime import prime
spent = prime("{stage}", llm=False)
print(json.dumps(sorted(spent)))
"""


@pytest.mark.parametrize(("stage", "given", "loaded"), [("sensor", True, True), ("retrieve", True, True),
                                                        ("route", False, False)])
def test_the_multilingual_model_is_primed_where_the_stack_names_its_files(stage, given, loaded, tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "functions"), "FOCAL_CONFIG_SOURCE": "file",
           "FOCAL_STORE": "sqlite", "FOCAL_AGENT_FILE": str(AGENT), "FOCAL_DB_PATH": str(tmp_path / "f.db"),
           "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENBLAS_NUM_THREADS": "1"}
    if given:
        env[ENV] = json.dumps(sources({}))
    done = subprocess.run([sys.executable, "-c", PROBE.format(stage=stage)], env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert ("multilingual" in json.loads(done.stdout.strip().splitlines()[-1])) is loaded
