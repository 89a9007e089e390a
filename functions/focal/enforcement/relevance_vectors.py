"""The relevance check's vectors: texts embedded for one draft, and the agent's own texts and the engine's exemplars
embedded once per embedder and kept (on disk too when the embedder keeps them: focal.ports.embed_fixed)."""

from __future__ import annotations

import threading

import numpy as np

from focal.ports import Embedder, embed_fixed

_vectors: dict[tuple[int, str], np.ndarray] = {}
_vectors_lock = threading.Lock()
MAX_CACHED = 4096


def embed_cached(embedder: Embedder, fresh: list[str], fixed: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Vectors of `fresh` texts (embedded now) and of `fixed` texts (the agent's own and the exemplars:
    embedded once per embedder and kept, on disk too when the embedder keeps them: focal.ports.embed_fixed)."""
    key = id(embedder)
    with _vectors_lock:
        known = {t: _vectors[(key, t)] for t in fixed if (key, t) in _vectors}
    missing = list(dict.fromkeys(t for t in fixed if t not in known))
    vectors = np.asarray(embedder.embed(fresh), dtype=np.float32) if fresh else np.zeros((0, 1), dtype=np.float32)
    if missing:
        known.update(zip(missing, np.asarray(embed_fixed(embedder, missing), dtype=np.float32), strict=True))
    with _vectors_lock:
        if len(_vectors) + len(missing) > MAX_CACHED:
            _vectors.clear()
        _vectors.update({(key, t): known[t] for t in missing})
    fixed_vectors = np.stack([known[t] for t in fixed]) if fixed else np.zeros((0, 1), dtype=np.float32)
    return vectors[: len(fresh)], fixed_vectors


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / ((np.linalg.norm(a) * np.linalg.norm(b)) or 1.0))
