"""The request for a person as a meaning in the multilingual space, for every turn matched there (focal.sensing.spaces).

English turns of an English agent hear it by the English lexicon and MiniLM's act exemplars (focal.sensing.acts).
A turn in another language is read here instead, with the message's multilingual vector the intent match already
computed (never embedded twice): its nearest sentence that asks for a person (focal.sensing.person_exemplars, in
en/es/de/fr, one shared space, so a paraphrase in any of them lands near them) must score at least `THRESHOLD`, and
beat its nearest near miss (a past conversation, a question about a person, someone else to talk to first) by at
least `MARGIN`. No phrase table: "Puis-je avoir quelqu'un au téléphone ?" is heard because of what it means.

Calibrated by `focal bench handoff --calibrate` on the exemplars alone, leave-one-out: the threshold halfway between
the highest near miss of a kind the index has not seen (left out with its translations) and the next request; the
margin in the middle of the gap between near misses of known kinds and the requests kept. Never tuned on
tests/data/handoff_requests (held out).
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass

import numpy as np

from focal.ports import Embedder, embed_fixed
from focal.sensing.person_exemplars import ASKING, NEAR_MISSES

# `focal bench handoff --calibrate`: the highest near miss of an unseen kind scores 0.570, the next request 0.576;
# near misses of known kinds sit at most -0.172 over a near miss, the requests kept at least +0.139.
THRESHOLD = 0.573  # the nearest asking sentence's cosine in the multilingual space
MARGIN = 0.069  # how much nearer to an asking sentence than to any near miss


@dataclass(frozen=True)
class PersonReading:
    asking: float  # cosine to the nearest sentence that asks for a person
    near_miss: float  # cosine to the nearest near miss

    @property
    def heard(self) -> bool:
        return self.asking >= THRESHOLD and self.asking - self.near_miss >= MARGIN

    def how(self) -> str:
        return f"meaning {self.asking:.2f}, {self.asking - self.near_miss:+.2f} over a near miss"


class PersonIndex:
    """The exemplars' vectors in one embedder's space."""

    def __init__(self, embedder: Embedder):
        self.asking = embed_fixed(embedder, [t for lang in ASKING for t in ASKING[lang]])
        self.near = embed_fixed(embedder, [t for lang in NEAR_MISSES for t in NEAR_MISSES[lang]])

    def reading(self, vector: np.ndarray) -> PersonReading:
        return PersonReading(float(np.max(self.asking @ vector)), float(np.max(self.near @ vector)))


_cache: dict[tuple[int, str], PersonIndex] = {}
_lock = threading.Lock()
_DIGEST = hashlib.sha256(repr((ASKING, NEAR_MISSES)).encode()).hexdigest()


def person_index(embedder: Embedder) -> PersonIndex:
    key = (id(embedder), _DIGEST)
    with _lock:
        if key not in _cache:
            _cache[key] = PersonIndex(embedder)
        return _cache[key]


def person_request(embedder: Embedder, vector: np.ndarray) -> str | None:
    """How the message was heard asking for a person ("meaning 0.71, +0.20 over a near miss"), or None."""
    reading = person_index(embedder).reading(vector)
    return reading.how() if reading.heard else None
