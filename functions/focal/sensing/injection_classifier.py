"""A small injection classifier of our own on the sentence embedding the sensor already computes.

A multilayer perceptron (ReLU hidden layers, a sigmoid output) over the L2-normalised MiniLM vector of the
message's injection view (focal.sensing.injection_view: folded, figures masked). Its weights are data,
`data/injection_classifier.npz`, written by `python -m focal.bench.injection_training` from permissively
licensed corpora (sources and licences: `data/INJECTION_CLASSIFIER.md`); at run time it is two or three
numpy matrix products, no training library.

The file carries the operating threshold, which was chosen on a validation split, and the name of the
embedding model its vectors must come from; the multilingual one also carries a threshold per language (each
chosen on that language's validation messages, never under the shared one), which `threshold_for` gives. A file
that is missing, unreadable or inconsistent, or an embedder of another model, is an error
(`InjectionClassifierUnavailable`), never a silently skipped check.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

DATA_FILE = "injection_classifier.npz"
# The same kind of model on the multilingual space (use-multilingual-v3), for messages in another language:
# written by `python -m focal.bench.injection_training_multilingual`.
MULTILINGUAL_DATA_FILE = "injection_classifier_multilingual.npz"
FORMAT = "focal-injection-mlp/1"


class InjectionClassifierUnavailable(RuntimeError):
    """The classifier's data cannot be used: the injection check cannot run as configured."""


@dataclass(frozen=True)
class EmbeddingClassifier:
    """Weights and biases of each layer (the last has one output), the threshold, and the embedding model."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    threshold: float
    embedding_model: str
    digest: str = ""
    language_thresholds: tuple[tuple[str, float], ...] = ()

    def threshold_for(self, lang: str | None) -> float:
        """The operating threshold for a view in `lang` (the shared one for a language without its own)."""
        return dict(self.language_thresholds).get(lang or "", self.threshold)

    @property
    def dimension(self) -> int:
        return int(self.weights[0].shape[0])

    def scores(self, vectors: np.ndarray) -> np.ndarray:
        """Probability of an attack for each row of `vectors` (n × dimension)."""
        h = np.asarray(vectors, dtype=np.float32).reshape(-1, self.dimension)
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            h = np.maximum(h @ w + b, 0.0)
        logits = (h @ self.weights[-1] + self.biases[-1]).reshape(-1)
        return (1.0 / (1.0 + np.exp(-np.clip(logits, -40.0, 40.0)))).astype(np.float64)

    def score(self, vector: np.ndarray) -> float:
        return float(self.scores(np.asarray(vector)[None, :])[0])

    def size_bytes(self) -> int:
        return sum(int(a.nbytes) for a in self.weights + self.biases)

    def check_embedder(self, embedder: Any) -> None:
        """Raise unless `embedder` makes the vectors this classifier was trained on."""
        name = getattr(embedder, "model_name", None)
        dimension = getattr(embedder, "dimension", None)
        if name != self.embedding_model or dimension != self.dimension:
            raise InjectionClassifierUnavailable(
                f"the injection classifier reads {self.embedding_model} vectors ({self.dimension} dimensions); "
                f"the embedder gives {name or type(embedder).__name__} ({dimension} dimensions)"
            )


def to_bytes(classifier: EmbeddingClassifier, meta: dict[str, Any] | None = None) -> bytes:
    """The .npz file of a classifier (`meta`: what the training recorded, kept as JSON)."""
    header = {"format": FORMAT, "threshold": classifier.threshold, "embedding_model": classifier.embedding_model,
              "layers": len(classifier.weights), **(meta or {})}
    if classifier.language_thresholds:
        header["language_thresholds"] = dict(classifier.language_thresholds)
    arrays: dict[str, np.ndarray] = {"header": np.frombuffer(json.dumps(header, sort_keys=True).encode(), np.uint8)}
    for i, (w, b) in enumerate(zip(classifier.weights, classifier.biases, strict=True)):
        arrays[f"w{i}"], arrays[f"b{i}"] = w.astype(np.float32), b.astype(np.float32)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()


def _header(data: Any) -> dict[str, Any]:
    header = json.loads(bytes(data["header"]).decode("utf-8"))
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} file")
    return header


def _layers(data: Any, count: int) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    weights = tuple(np.asarray(data[f"w{i}"], dtype=np.float32) for i in range(count))
    biases = tuple(np.asarray(data[f"b{i}"], dtype=np.float32) for i in range(count))
    width = weights[0].shape[0]
    for w, b in zip(weights, biases, strict=True):
        if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],) or not np.all(np.isfinite(w)):
            raise ValueError("layer shapes do not chain or hold non-finite numbers")
        width = w.shape[1]
    if width != 1:
        raise ValueError("the last layer must have one output")
    return weights, biases


def _threshold(value: Any) -> float:
    threshold = float(value)
    if not 0.0 < threshold < 1.0:  # also refuses NaN
        raise ValueError(f"threshold {threshold} outside (0, 1)")
    return threshold


def from_bytes(raw: bytes, name: str = DATA_FILE) -> EmbeddingClassifier:
    """Read a classifier file; any defect is `InjectionClassifierUnavailable` naming the file and why."""
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as data:
            header = _header(data)
            count = int(header["layers"])
            if not 1 <= count <= 4:
                raise ValueError(f"{count} layers")
            weights, biases = _layers(data, count)
        threshold = _threshold(header["threshold"])
        languages = tuple(sorted((str(k), _threshold(v)) for k, v in (header.get("language_thresholds") or {}).items()))
        model = str(header["embedding_model"])
    except InjectionClassifierUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 - any defect of the file is the same clear error
        raise InjectionClassifierUnavailable(f"injection classifier data {name} cannot be read: {exc}") from exc
    return EmbeddingClassifier(weights, biases, threshold, model, hashlib.sha256(raw).hexdigest()[:12], languages)


_shipped: dict[str, EmbeddingClassifier] = {}
_lock = threading.Lock()


def shipped_classifier(data_file: str | None = None) -> EmbeddingClassifier:
    """A classifier shipped with the package, the English one by default (read once per process; an error each
    call while it cannot be)."""
    data_file = data_file or DATA_FILE
    with _lock:
        if data_file not in _shipped:
            try:
                raw = resources.files("focal.sensing").joinpath("data", data_file).read_bytes()
            except OSError as exc:
                raise InjectionClassifierUnavailable(
                    f"injection classifier data {data_file} is missing from focal/sensing/data: {exc}"
                ) from exc
            _shipped[data_file] = from_bytes(raw, data_file)
        return _shipped[data_file]


def shipped_multilingual_classifier() -> EmbeddingClassifier:
    """The classifier for messages in another language, on the multilingual model's vectors."""
    return shipped_classifier(MULTILINGUAL_DATA_FILE)
