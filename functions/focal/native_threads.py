"""Native thread pools pinned to one thread, locally as in Lambda, unless the user set them.

numpy's BLAS (OpenBLAS in the wheels; MKL or OpenMP builds read their own variables) starts one spinning
thread per core: on a small machine those threads fight the interpreter and each other, and a 10k-rule
search took 8-12 ms p50 instead of 0.7 ms single-threaded. The pools read these variables once, when
numpy's library loads, so they are set before anything imports numpy (`focal/__init__` runs first for
the CLI, `focal serve` and the Lambda handlers). A value already in the environment is the user's
choice and is kept. onnxruntime's intra-op pool is set per session (FOCAL_ONNX_THREADS, default 1).
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

PINNED = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


def pin_native_threads(environ: MutableMapping[str, str] = os.environ) -> dict[str, str]:
    """Set each pool's variable to 1 where the user left it unset; returns what is in force."""
    for name in PINNED:
        if not environ.get(name, "").strip():
            environ[name] = "1"
    return {name: environ[name] for name in PINNED}
