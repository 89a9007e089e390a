"""The joint intent space: MiniLM and the multilingual model side by side, for English turns of English agents.

A joint vector is `[√a · m, √(1-a) · u]` for unit vectors m (MiniLM) and u (use-multilingual-v3): a unit vector
whose cosine with another is `a · cos_m + (1-a) · cos_u`, so the nearest-example rule and the logistic head of
focal.sensing.intents run on it unchanged and rank by both models at once. Scores stay on the cosine scale the
agent's thresholds are written for: on CLINC150 validation the out-of-scope threshold chosen in the joint space is
0.44 (MiniLM alone: 0.43). Re-anchoring the top score to MiniLM's own cosine was tried and dropped on validation
evidence (oos recall 59.0 vs 72.0 at the same in-scope budget).

`a` = 0.7 was chosen on Banking77 10-shot TRAINING rows only (7 rows per label trained on, 3 held out, seeds 0–4,
231 queries each; mean accuracy): MiniLM alone 80.52, a = 0.8 81.04, 0.7 81.73, 0.6 81.56, 0.5 81.04 (head weight
0.3 and L2 1e-3 kept: 1e-4 / 1e-2 did no better). Both models already ship (the second for es/de/fr turns).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from focal.ports import Embedder, embed_fixed

MINILM_SHARE = 0.7


def joint(first: np.ndarray, second: np.ndarray, share: float = MINILM_SHARE) -> np.ndarray:
    """Rows `[√share · first, √(1-share) · second]` (unit rows in, unit rows out)."""
    first, second = np.atleast_2d(first), np.atleast_2d(second)
    return np.hstack([first * np.float32(math.sqrt(share)), second * np.float32(math.sqrt(1.0 - share))]).astype(np.float32)


class JointEmbedder:
    """An Embedder of joint vectors (intent matching only; retrieval and relevance keep the first model)."""

    def __init__(self, first: Embedder, second: Embedder, share: float = MINILM_SHARE):
        if not 0.0 < share <= 1.0:
            raise ValueError(f"share must be in (0, 1], got {share}")
        self.first, self.second, self.share = first, second, share
        self.dimension = first.dimension + second.dimension
        names = (getattr(e, "model_name", type(e).__name__) for e in (first, second))
        self.model_name = "+".join(names) + f"@{share:g}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return joint(np.asarray(self.first.embed(texts), np.float32), np.asarray(self.second.embed(texts), np.float32),
                     self.share)

    def embed_fixed(self, texts: Sequence[str]) -> np.ndarray:
        return joint(np.asarray(embed_fixed(self.first, texts), np.float32),
                     np.asarray(embed_fixed(self.second, texts), np.float32), self.share)

    def joint_message(self, first_vector: np.ndarray, text: str) -> np.ndarray:
        """The message's joint vector from its first-model vector (already computed by the turn) and the second."""
        second = np.asarray(self.second.embed([text]), np.float32)[0]
        return joint(np.asarray(first_vector, np.float32), second, self.share)[0]
