"""Ports built on their first use, so a function's init imports neither numpy nor onnxruntime.

A stage that never embeds or searches (route, tools, generate, persist) then never pays for them: a few
hundred ms of CPU each on a cold start without bytecode (numpy ships without .pyc in the deps layer).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from focal.ports import Hit, IndexedRule, RuleIndex, ScopeFilter

if TYPE_CHECKING:
    import numpy as np

    from focal.adapters.onnx_embedder import OnnxEmbedder

MINILM_DIMENSION = 384  # OnnxEmbedder.dimension, without importing it


class LazyEmbedder:
    """The shared MiniLM model, loaded on the first `embed`: the stage functions that never embed run
    without the ONNX models layer and never pay for the model."""

    dimension = MINILM_DIMENSION
    model_name = "all-MiniLM-L6-v2"  # OnnxEmbedder.model_name, without importing it

    def __init__(self, model_dir: str | None = None, threads: int | None = None):
        self.model_dir, self.threads = model_dir, threads

    def _model(self) -> OnnxEmbedder:
        from focal.adapters.onnx_embedder import shared_embedder

        return shared_embedder(self.model_dir, self.threads)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._model().embed(texts)

    def clear_cache(self) -> None:
        self._model().clear_cache()


class LazyMultilingualEmbedder:
    """The multilingual model (focal.adapters.use_embedder), imported and loaded on the first `embed`."""

    dimension = 512  # UseEmbedder.dimension, without importing it
    model_name = "use-multilingual-v3"  # UseEmbedder.model_name

    def __init__(self, threads: int | None = None):
        self.threads = threads

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        from focal.adapters.use_embedder import shared_multilingual_embedder

        return shared_multilingual_embedder(self.threads).embed(texts)


class LazyRuleIndex:
    """The embedded numpy index, built by `build` on the first call."""

    def __init__(self, build: Callable[[], RuleIndex]):
        self._build = build
        self._made: RuleIndex | None = None
        self._lock = threading.Lock()

    def resolve(self) -> RuleIndex:
        """The index itself, built now if it was not yet."""
        with self._lock:
            if self._made is None:
                self._made = self._build()
            return self._made

    def upsert(self, tenant_id: str, agent_id: str, docs: Sequence[IndexedRule], vectors: np.ndarray) -> None:
        self.resolve().upsert(tenant_id, agent_id, docs, vectors)

    def delete(self, tenant_id: str, agent_id: str, ids: Sequence[str]) -> None:
        self.resolve().delete(tenant_id, agent_id, ids)

    def digests(self, tenant_id: str, agent_id: str) -> dict[str, str]:
        return self.resolve().digests(tenant_id, agent_id)

    def search(self, scope: ScopeFilter, vector: np.ndarray, k: int) -> list[Hit]:
        return self.resolve().search(scope, vector, k)
