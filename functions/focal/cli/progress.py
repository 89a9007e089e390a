"""Lines on stderr for slow work, shared by the commands (never on stdout, so JSON output stays JSON)."""

from __future__ import annotations

import sys


def progress(message: str) -> None:
    """A line on stderr for slow work (never on stdout, so JSON output stays JSON)."""
    print(message, file=sys.stderr, flush=True)


def loading_model() -> None:
    from focal.adapters import onnx_embedder

    if not getattr(onnx_embedder, "_shared", None):
        progress("loading the MiniLM model…")
