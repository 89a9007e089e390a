"""numpy's BLAS pool (and the OpenMP / MKL ones) run one thread locally as in Lambda: pinned before numpy
loads, whatever imports focal first (the CLI, `focal serve`, a handler), and a value the user set is kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from focal.native_threads import pin_native_threads

FUNCTIONS = Path(__file__).resolve().parents[2] / "functions"
NAMES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
CLI_START = (
    "import json, os, sys\n"
    "import focal.main\n"  # what the `focal` entry point imports before main() runs
    "print(json.dumps({'env': {k: os.environ.get(k) for k in %r}, 'numpy_before': NUMPY_BEFORE}))\n"
)


def _cli_env(**user: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in NAMES and not k.startswith("PYTHON")}
    return {**env, "PYTHONPATH": str(FUNCTIONS), "LITELLM_LOCAL_MODEL_COST_MAP": "True", **user}


def _start_cli(env: dict[str, str]) -> dict:
    # numpy must not be loaded before the pin: record whether it was, right after `import focal`
    code = "import sys, focal\nNUMPY_BEFORE = 'numpy' in sys.modules\n" + CLI_START % (NAMES,)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_cli_pins_blas_threads_before_numpy_loads():
    seen = _start_cli(_cli_env())
    assert seen["env"] == {name: "1" for name in NAMES}
    assert seen["numpy_before"] is False


def test_a_value_the_user_set_is_kept():
    seen = _start_cli(_cli_env(OPENBLAS_NUM_THREADS="3"))
    assert seen["env"]["OPENBLAS_NUM_THREADS"] == "3"
    assert seen["env"]["OMP_NUM_THREADS"] == "1" and seen["env"]["MKL_NUM_THREADS"] == "1"


def test_pin_sets_only_what_is_unset():
    env = {"MKL_NUM_THREADS": "8", "OMP_NUM_THREADS": ""}
    assert pin_native_threads(env)["MKL_NUM_THREADS"] == "8"
    assert env["OPENBLAS_NUM_THREADS"] == "1" and env["OMP_NUM_THREADS"] == "1"  # empty counts as unset
