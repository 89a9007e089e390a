"""What an embedder keeps in memory: the latest vectors by text (least recently used dropped first), and the
digest of the model files its vectors depend on."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np


class VectorMemo:
    def __init__(self, size: int):
        self._size = size
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def fill(self, texts: Sequence[str], out: np.ndarray) -> list[int]:
        """Copy the kept vectors into `out`'s rows; the indexes of the texts still to embed."""
        missing: list[int] = []
        with self._lock:
            for i, text in enumerate(texts):
                hit = self._kept.get(text)
                if hit is not None:
                    self._kept.move_to_end(text)
                    out[i] = hit
                else:
                    missing.append(i)
        return missing

    def keep(self, vectors: Iterable[tuple[str, np.ndarray]]) -> None:
        with self._lock:
            self._kept.update(vectors)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


def files_digest(prefix: str, paths: Iterable[Path]) -> str:
    """sha256 of `prefix` (how the vectors are made) and the files' bytes."""
    digest = hashlib.sha256(prefix.encode())
    for path in paths:
        with open(path, "rb") as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
    return digest.hexdigest()
