"""Vectors of the agent's own texts kept on disk, so a later process does not embed them again.

The texts are those the engine embeds to build its indexes (scenario examples, rules, the agent's own replies)
and the shipped exemplars (dialogue acts, injection attempts, refusals): never a customer's message, which goes
through `embed` and is not kept. Each vector is keyed by sha256(model id, text): a changed text or another
model is a miss, embedded and added. One file per model, `vectors-<model>.npz` in the cache folder (beside
the local SQLite database: `.focal/vectors/`), rewritten whole through a temporary file and a rename, after
merging what the file holds by then: concurrent runs never see half a file, and at worst one run's additions
are lost and embedded again next time. A file that cannot be read, or a vector of the wrong shape, is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

MAX_ENTRIES = 20_000  # about 30 MB of MiniLM vectors: the newest are kept


class VectorFile:
    """The vectors of one model in one folder."""

    def __init__(self, folder: str | Path, model_id: str):
        self.folder = Path(folder)
        self.model_id = model_id
        self.path = self.folder / f"vectors-{hashlib.sha256(model_id.encode()).hexdigest()[:16]}.npz"

    @staticmethod
    def key(model_id: str, text: str) -> bytes:
        return hashlib.sha256(model_id.encode() + b"\0" + text.encode("utf-8", "surrogatepass")).digest()

    def load(self) -> dict[bytes, np.ndarray]:
        """What the file holds now ({} when there is no file or it cannot be read)."""
        try:
            with np.load(self.path, allow_pickle=False) as data:
                keys, vectors = data["keys"], data["vectors"]
        except FileNotFoundError:
            return {}
        except Exception as exc:  # noqa: BLE001 - a damaged or foreign file is a miss, never an error
            log.info("vector cache %s not read: %s", self.path.name, type(exc).__name__)
            return {}
        if keys.dtype != np.uint8 or keys.ndim != 2 or keys.shape[1] != 32 or vectors.ndim != 2 \
                or len(keys) != len(vectors) or vectors.dtype != np.float32:
            return {}
        return {bytes(k): v for k, v in zip(keys, vectors, strict=True)}

    def save(self, new: dict[bytes, np.ndarray]) -> None:
        """Add `new` to what the file holds by now; written to a temporary file, then renamed over it."""
        if not new:
            return
        width = next(iter(new.values())).shape
        merged = {k: v for k, v in self.load().items() if v.shape == width and k not in new}
        merged.update(new)
        keys = list(merged)[-MAX_ENTRIES:]
        tmp = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.folder, prefix=".vectors-", suffix=".tmp", delete=False) as fh:
                tmp = fh.name
                np.savez(fh, keys=np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), 32),
                         vectors=np.stack([merged[k] for k in keys]).astype(np.float32))
            os.replace(tmp, self.path)
        except OSError as exc:  # a read-only or full disk: the vectors are embedded again next time
            log.info("vector cache %s not written: %s", self.path.name, type(exc).__name__)
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


class CachedEmbedder:
    """An embedder whose `embed_fixed` (focal.ports.embed_fixed) reads and keeps vectors on disk; `embed` is
    the inner model's, kept nowhere."""

    def __init__(self, inner: Any, folder: str | Path, model_id: str):
        self.inner = inner
        self.dimension = inner.dimension
        self.model_name = getattr(inner, "model_name", type(inner).__name__)
        self.model_id = model_id
        self.file = VectorFile(folder, model_id)
        self.stats = {"from_cache": 0, "embedded": 0}
        self._known: dict[bytes, np.ndarray] | None = None
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.inner.embed(texts), dtype=np.float32)

    def clear_cache(self) -> None:
        clear = getattr(self.inner, "clear_cache", None)
        if callable(clear):
            clear()

    def _usable(self, vector: np.ndarray | None) -> bool:
        return vector is not None and vector.shape == (self.dimension,) and bool(np.all(np.isfinite(vector)))

    def embed_fixed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        keys = [VectorFile.key(self.model_id, t) for t in texts]
        with self._lock:
            if self._known is None:
                self._known = self.file.load()
            known = self._known
            missing = [i for i, k in enumerate(keys) if not self._usable(known.get(k))]
            absent = set(missing)
            for i, k in enumerate(keys):
                if i not in absent:
                    out[i] = known[k]
        self.stats["from_cache"] += len(texts) - len(missing)
        if not missing:
            return out
        unique = list(dict.fromkeys(texts[i] for i in missing))
        vectors = np.asarray(self.inner.embed(unique), dtype=np.float32)
        by_text = dict(zip(unique, vectors, strict=True))
        for i in missing:
            out[i] = by_text[texts[i]]
        new = {VectorFile.key(self.model_id, t): by_text[t] for t in unique}
        with self._lock:
            self._known.update(new)
            self.stats["embedded"] += len(unique)
            self.file.save(new)
        return out


_wrappers: dict[tuple[int, str], tuple[Any, CachedEmbedder]] = {}
_wrappers_lock = threading.Lock()


def cached_embedder(inner: Any, folder: str | Path) -> CachedEmbedder:
    """One wrapper per model and folder in a process (the engine's in-memory indexes are keyed by embedder)."""
    key = (id(inner), str(Path(folder).resolve()))
    with _wrappers_lock:
        hit = _wrappers.get(key)
        if hit is None or hit[0] is not inner:
            hit = (inner, CachedEmbedder(inner, folder, inner.model_id))  # holding `inner` keeps id() unique
            _wrappers[key] = hit
        return hit[1]
