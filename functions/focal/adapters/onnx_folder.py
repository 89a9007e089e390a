"""Loading an ONNX sequence classifier from a folder (`model.onnx` + `tokenizer.json`): the
prompt-injection classifier and the relevance / NLI cross-encoders share it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

DTYPES = {"tensor(int64)": np.int64, "tensor(int32)": np.int32}


def session_options(threads: int) -> ort.SessionOptions:
    """One intra-op thread, no spinning: the default pool spin-waits on 2-core machines (TOOLCHAIN.md)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


@dataclass
class ClassifierFolder:
    session: ort.InferenceSession
    inputs: dict[str, Any]  # input name → integer dtype
    tokenizer: Tokenizer
    n_labels: int


def load_classifier(folder: str | Path, what: str, threads: int, max_tokens: int,
                    truncation: str = "longest_first") -> ClassifierFolder:
    base = Path(folder)
    model, tokenizer_file = base / "model.onnx", base / "tokenizer.json"
    if not (model.exists() and tokenizer_file.exists()):
        raise FileNotFoundError(f"{what} folder {base} needs model.onnx and tokenizer.json")
    session = ort.InferenceSession(str(model), session_options(threads), providers=["CPUExecutionProvider"])
    inputs = {i.name: DTYPES.get(i.type, np.int64) for i in session.get_inputs()}
    if "input_ids" not in inputs:
        raise ValueError(f"{model}: expected an 'input_ids' input, found {sorted(inputs)}")
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_tokens, strategy=truncation)
    shape = session.get_outputs()[0].shape
    return ClassifierFolder(session, inputs, tokenizer, shape[-1] if isinstance(shape[-1], int) else 2)
