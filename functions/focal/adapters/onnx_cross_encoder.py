"""Optional cross-encoders on onnxruntime for the output checks (`RelevanceModel`, `EntailmentModel` ports).

A folder (`enforcement.relevance_model_dir` / `enforcement.grounding_model_dir`) holds a sequence-pair
classifier exported to ONNX, e.g. an ms-marco cross-encoder for relevance or an NLI cross-encoder for
grounding:
- `model.onnx`: inputs among input_ids / attention_mask / token_type_ids, first output the logits
  (batch × labels; one label means a sigmoid score);
- `tokenizer.json`: a Hugging Face `tokenizers` file; the pair is encoded as (first, second), the
  first text truncated first;
- `config.json` (optional): `id2label`; the label naming relevance (relevant / positive) or
  entailment is the positive one, else label 1 (of two or three: the usual NLI labels are,
  in turn, contradiction, entailment, neutral).
Nothing is fetched: the folder is shipped in the models layer or on disk. One session per folder
and process, single-threaded and without spin-waiting (see TOOLCHAIN.md).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from focal.adapters.onnx_folder import load_classifier

RELEVANT = re.compile(r"relevan|positive|match", re.IGNORECASE)
ENTAILMENT = re.compile(r"entail", re.IGNORECASE)
NEGATIVE = re.compile(r"^(?:ir|non|not|un)|negative|contradict|neutral", re.IGNORECASE)  # "irrelevant" is no match


def _positive_index(folder: Path, n_labels: int, pattern: re.Pattern[str]) -> int:
    config = folder / "config.json"
    if config.exists():
        id2label = json.loads(config.read_text(encoding="utf-8")).get("id2label") or {}
        for key, label in id2label.items():
            if pattern.search(str(label)) and not NEGATIVE.search(str(label)):
                return int(key)
    return 1 if n_labels >= 2 else 0


class OnnxPairClassifier:
    """P(positive label) for text pairs, one batch per call."""

    def __init__(self, folder: str | Path, pattern: re.Pattern[str], threads: int = 1, max_tokens: int = 512):
        base = Path(folder)
        loaded = load_classifier(base, "cross-encoder", threads, max_tokens, truncation="only_first")
        self._session, self._inputs, self._tokenizer = loaded.session, loaded.inputs, loaded.tokenizer
        self._n_labels = loaded.n_labels
        self._positive = _positive_index(base, self._n_labels, pattern)
        self._lock = threading.Lock()

    def scores(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """One batch per token length: no padding, so a pair scores the same alone or among others."""
        encodings = [self._tokenizer.encode(a, b) for a, b in pairs]
        by_length: dict[int, list[int]] = {}
        for row, e in enumerate(encodings):
            by_length.setdefault(len(e.ids), []).append(row)
        out = [0.0] * len(encodings)
        for rows in by_length.values():
            for row, score in zip(rows, self._run([encodings[r] for r in rows]), strict=True):
                out[row] = score
        return out

    def _run(self, encodings: list) -> list[float]:  # noqa: ANN001 - tokenizers.Encoding
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64).reshape(len(encodings), -1)
        feeds = {"input_ids": ids.astype(self._inputs["input_ids"])}
        if "attention_mask" in self._inputs:
            feeds["attention_mask"] = np.ones_like(ids, dtype=self._inputs["attention_mask"])
        if "token_type_ids" in self._inputs:
            types = np.asarray([e.type_ids for e in encodings], dtype=np.int64).reshape(ids.shape)
            feeds["token_type_ids"] = types.astype(self._inputs["token_type_ids"])
        with self._lock:
            logits = np.asarray(self._session.run(None, feeds)[0], dtype=np.float64).reshape(len(encodings), -1)
        if logits.shape[1] == 1:
            return [float(p) for p in 1.0 / (1.0 + np.exp(-logits[:, 0]))]
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        return [float(p) for p in shifted[:, self._positive] / shifted.sum(axis=1)]


class OnnxRelevanceModel:
    """The `RelevanceModel` port: (query, answer) → P(relevant)."""

    def __init__(self, folder: str | Path, threads: int = 1):
        self._pairs = OnnxPairClassifier(folder, RELEVANT, threads)

    def relevance(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self._pairs.scores(list(pairs))


class OnnxEntailmentModel:
    """The `EntailmentModel` port: (premise, hypothesis) → P(entailment)."""

    def __init__(self, folder: str | Path, threads: int = 1):
        self._pairs = OnnxPairClassifier(folder, ENTAILMENT, threads)

    def entailment(self, premise: str, hypotheses: Sequence[str]) -> list[float]:
        return self._pairs.scores([(premise, h) for h in hypotheses])


_shared: dict[tuple[str, str], object] = {}
_shared_lock = threading.Lock()


def _load(kind: str, folder: str | None, cls: type) -> object | None:
    if not folder:
        return None
    key = (kind, os.path.abspath(folder))
    with _shared_lock:
        if key not in _shared:
            _shared[key] = cls(key[1], int(os.environ.get("FOCAL_ONNX_THREADS", "1")))
        return _shared[key]


def shared_relevance_model(folder: str | None) -> OnnxRelevanceModel | None:
    """One relevance cross-encoder per folder and process; None when no folder is configured."""
    return _load("relevance", folder, OnnxRelevanceModel)  # type: ignore[return-value]


def shared_entailment_model(folder: str | None) -> OnnxEntailmentModel | None:
    """One NLI cross-encoder per folder and process; None when no folder is configured."""
    return _load("grounding", folder, OnnxEntailmentModel)  # type: ignore[return-value]
