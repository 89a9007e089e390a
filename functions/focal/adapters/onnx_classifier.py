"""An optional prompt-injection classifier on onnxruntime (the `InjectionClassifier` port).

The folder (`pre_validation.injection_classifier_dir`) holds a sequence classifier exported to ONNX:
- `model.onnx`: inputs among input_ids / attention_mask / token_type_ids, first output the logits
  (batch × labels; one label means a sigmoid score);
- `tokenizer.json`: a Hugging Face `tokenizers` file;
- `config.json` (optional): `id2label`; the label naming injection / jailbreak / unsafe is the
  positive one, else label 1 of two.
Nothing is fetched: the folder is shipped in the models layer or on disk.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import numpy as np

from focal.adapters.onnx_folder import load_classifier

_POSITIVE = re.compile(r"inject|jailbreak|unsafe|malicious|attack|harmful", re.IGNORECASE)


def _positive_index(folder: Path, n_labels: int) -> int:
    config = folder / "config.json"
    if config.exists():
        id2label = json.loads(config.read_text(encoding="utf-8")).get("id2label") or {}
        for key, label in id2label.items():
            if _POSITIVE.search(str(label)):
                return int(key)
    return 1 if n_labels == 2 else n_labels - 1


class OnnxInjectionClassifier:
    def __init__(self, folder: str | Path, threads: int = 1, max_tokens: int = 512):
        base = Path(folder)
        loaded = load_classifier(base, "injection classifier", threads, max_tokens)
        self._session, self._inputs, self._tokenizer = loaded.session, loaded.inputs, loaded.tokenizer
        self._n_labels = loaded.n_labels
        self._positive = _positive_index(base, self._n_labels)
        self._lock = threading.Lock()

    def injection_score(self, text: str) -> float:
        encoding = self._tokenizer.encode(text)
        ids = np.asarray([encoding.ids], dtype=np.int64)
        feeds = {"input_ids": ids.astype(self._inputs["input_ids"])}
        if "attention_mask" in self._inputs:
            feeds["attention_mask"] = np.ones_like(ids, dtype=self._inputs["attention_mask"])
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids, dtype=self._inputs["token_type_ids"])
        with self._lock:
            logits = np.asarray(self._session.run(None, feeds)[0], dtype=np.float64).reshape(-1)
        if logits.size == 1:
            return float(1.0 / (1.0 + np.exp(-logits[0])))
        shifted = np.exp(logits - logits.max())
        return float(shifted[self._positive] / shifted.sum())


_shared: dict[str, OnnxInjectionClassifier] = {}
_shared_lock = threading.Lock()


def shared_injection_classifier(folder: str | None) -> OnnxInjectionClassifier | None:
    """One classifier per folder and process; None when no folder is configured."""
    if not folder:
        return None
    key = os.path.abspath(folder)
    with _shared_lock:
        if key not in _shared:
            _shared[key] = OnnxInjectionClassifier(key, int(os.environ.get("FOCAL_ONNX_THREADS", "1")))
        return _shared[key]
