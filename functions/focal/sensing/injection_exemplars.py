"""Nearest neighbours for the injection check: shipped attack exemplars against ordinary customer messages.

The message's view vector (focal.sensing.injection_view) is compared with a shipped set of attack
exemplars and a shipped set of ordinary customer messages (plus the agent's own of each): an attack must
be close to an attack in absolute terms and closer to it than to any ordinary request. The exemplars are
embedded through the same view (figures masked), once per process and embedder.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from focal.ports import Embedder, embed_fixed
from focal.sensing.injection_view import injection_view

ATTACK_FILE = "injection_exemplars.txt"
ORDINARY_FILE = "customer_exemplars.txt"


def _read_lines(name: str) -> tuple[str, ...]:
    text = resources.files("focal.sensing").joinpath("data", name).read_text(encoding="utf-8")
    return tuple(line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))


@lru_cache(maxsize=1)
def attack_exemplars() -> tuple[str, ...]:
    return _read_lines(ATTACK_FILE)


@lru_cache(maxsize=1)
def ordinary_exemplars() -> tuple[str, ...]:
    return _read_lines(ORDINARY_FILE)


@dataclass(frozen=True)
class ExemplarIndex:
    attacks: np.ndarray  # (n_attacks, dim), L2-normalised
    ordinary: np.ndarray  # (n_ordinary, dim), L2-normalised

    def nearest(self, vector: np.ndarray) -> tuple[int, float, float]:
        """(index of the closest attack exemplar, its cosine, best cosine to an ordinary message)."""
        attack_sims = self.attacks @ vector
        best = int(attack_sims.argmax())
        ordinary_best = float((self.ordinary @ vector).max()) if len(self.ordinary) else 0.0
        return best, float(attack_sims[best]), ordinary_best


def _digest(lines: tuple[str, ...]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


@lru_cache(maxsize=64)
def _views(texts: tuple[str, ...]) -> tuple[str, ...]:
    """The exemplars as the injection check reads them, worked out once per set of texts (every turn asks)."""
    return tuple(injection_view(t) for t in texts)


_indexes: dict[tuple[int, str], tuple[Embedder, ExemplarIndex]] = {}
_indexes_lock = threading.Lock()


def exemplar_index(embedder: Embedder, extra_attacks: Sequence[str] = (), extra_ordinary: Sequence[str] = ()) -> ExemplarIndex:
    """The exemplar vectors for this embedder: the shipped generic ones plus the agent's own
    (`pre_validation.extra_attack_exemplars` / `extra_ordinary_exemplars`), embedded once per process
    and keyed by embedder and content digest."""
    attacks = _views(attack_exemplars() + tuple(extra_attacks))
    ordinary = _views(ordinary_exemplars() + tuple(extra_ordinary))
    key = (id(embedder), _digest(attacks + ("--",) + ordinary))
    hit = _indexes.get(key)
    if hit is not None and hit[0] is embedder:
        return hit[1]
    with _indexes_lock:
        hit = _indexes.get(key)
        if hit is None or hit[0] is not embedder:
            vectors = np.asarray(embed_fixed(embedder, list(attacks + ordinary)), dtype=np.float32)
            index = ExemplarIndex(attacks=vectors[: len(attacks)], ordinary=vectors[len(attacks):])
            _indexes[key] = hit = (embedder, index)  # holding the embedder keeps id() unique
        return hit[1]
