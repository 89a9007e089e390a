"""Calibrated similarity for rule matching: cosine after centring both sides on the background mean.

Sentence embeddings are anisotropic: every MiniLM vector shares a common component (the mean of 6,000
ordinary customer messages has norm 0.33), and how much of it a text carries varies from text to text,
so a rule phrased as a generic customer question scores high against every message, and one phrased
as a description ("The reply offers a discount") low against all of them. Subtracting that mean from
the document and the query before the cosine removes the shared part: unrelated pairs centre on 0,
and one threshold means about the same for every rule and every message (on the labelled sets, the
separation of matching from non-matching pairs rose from AUC 0.91 to 0.94).

The mean is a constant of the model, computed once from public customer messages (see
data/minilm_background.json: the corpus, the sample and the model) and shipped. It is applied in
retrieval only — indexed documents and the query — so both index adapters see ordinary unit vectors.
An embedder whose model has no background mean here is used as is (no centring), and says so in the
documents' digest.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from focal.ports import Embedder

MINILM = "all-MiniLM-L6-v2"
VERSION = "centred-1"  # part of each document's digest: a change re-embeds the index
DATA = Path(__file__).resolve().parent / "data"
# The background mean of each model that has one: MiniLM's under its historical name, any other model's as
# `<model name>_background.json` (focal bench languages --calibrate writes the multilingual model's).
_BACKGROUND_FILES = {MINILM: "minilm_background.json"}


@lru_cache(maxsize=4)
def background_mean(model_id: str) -> np.ndarray | None:
    path = DATA / _BACKGROUND_FILES.get(model_id, f"{model_id}_background.json")
    if "/" in model_id or not path.is_file():
        return None
    raw = json.loads(path.read_text("utf-8"))
    return np.asarray(raw["mean"], dtype=np.float32)


def model_id(embedder: Embedder) -> str:
    """Which model an embedder's vectors come from, by name (`model_name`; its `model_id` is a digest of its bytes)."""
    return str(getattr(embedder, "model_name", type(embedder).__name__))


def calibration_id(embedder: Embedder) -> str:
    """What the vectors of this embedder go through before indexing and search (part of the digest)."""
    mean = background_mean(model_id(embedder))
    return VERSION if mean is not None and len(mean) == embedder.dimension else "raw"


def centred(embedder: Embedder, vectors: np.ndarray) -> np.ndarray:
    """Rows centred on the model's background mean and L2-normalised (unchanged without a mean)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    mean = background_mean(model_id(embedder))
    if mean is None or vectors.shape[-1] != len(mean):
        return vectors
    out = vectors - mean
    norms = np.linalg.norm(out, axis=-1, keepdims=True)
    return (out / np.clip(norms, 1e-12, None)).astype(np.float32)

