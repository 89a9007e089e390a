"""Few-shot intent detection over the scenarios' `entry_examples`.

A scenario's score is on the cosine scale the navigation thresholds are written for
(`entry_threshold`, `clarify_floor`, `ambiguity_margin`, `exit_intent_threshold`):

    score(c) = maxcos(c) + w * (log p(c) - log p(t)),   clipped to [-1, 1]
    t = argmax_c [maxcos(c) + w * log p(c)]               (the scenario ranked first)

- `maxcos(c)`: the highest cosine between the message and the scenario's entry examples (the
  nearest-example rule this index always used);
- `p`: a small multinomial logistic-regression head trained in numpy when the index is built, on
  the entry examples plus one pseudo-example per scenario (its name and intent label);
- `w`: `NavigationConfig.intent_head_weight` (0 turns the head off).

The ranking is the product of the two experts (nearest example and the head), which separates
intents whose examples interleave. The scenario ranked first keeps exactly its nearest-example
cosine, so an absolute threshold on the top score still reads as "this close to a known example"
(entry threshold; out of scope below it). Every other scenario scores below it by the combined
margin `maxcos(t) - maxcos(c) + w * log(p(t) / p(c))`, which stays small only when both experts
hesitate: a near-tie still asks.

`IntentScorer` is the numeric core (vectors in, score matrix out); `IntentIndex` builds one from an
agent's scenarios. `focal bench intents` runs the same `IntentIndex` on public benchmarks.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence

import numpy as np

from focal.models.agent import AgentConfig, Scenario
from focal.models.context import IntentScore
from focal.ports import Embedder, embed_fixed

DEFAULT_HEAD_WEIGHT = 0.3
HEAD_INPUT_SCALE = 5.0  # unit vectors × 5 → logits need only moderate weights
HEAD_L2 = 1e-3
HEAD_ITERATIONS = 300


def pseudo_examples(scenario: Scenario) -> list[str]:
    """The scenario's own name and intent label as plain phrases ("card_arrival" → "card arrival")."""
    out: list[str] = []
    for raw in (scenario.name, scenario.intent_label or scenario.id):
        text = re.sub(r"[_\-]+", " ", raw or "").strip().lower()
        if text and text not in out:
            out.append(text)
    return out


def train_head(
    x: np.ndarray, y: np.ndarray, n_classes: int, *, l2: float = HEAD_L2, scale: float = HEAD_INPUT_SCALE,
    iterations: int = HEAD_ITERATIONS,
) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression on (scaled) unit vectors, L2-regularised, accelerated gradient
    descent (FISTA) with the step from the loss's Lipschitz bound. Deterministic; returns (W, b) for
    logits = x @ W + b."""
    n, d = x.shape
    z = (x * scale).astype(np.float32)
    targets = np.zeros((n, n_classes), np.float32)
    targets[np.arange(n), y] = 1.0
    # softmax cross-entropy is 1/2-smooth in the logits: L ≤ ½‖z‖₂²/n (+1/2 for the bias) + l2
    gram = z @ z.T if n < d else z.T @ z  # same largest eigenvalue, the smaller matrix
    spectral_sq = float(np.linalg.eigvalsh(gram.astype(np.float64))[-1])
    step = np.float32(1.0 / (0.5 * spectral_sq / n + 0.5 + l2))
    w = np.zeros((d, n_classes), np.float32)
    b = np.zeros(n_classes, np.float32)
    w_look, b_look, t = w.copy(), b.copy(), 1.0
    inv_n, l2_32 = np.float32(1.0 / n), np.float32(l2)
    for _ in range(iterations):
        logits = z @ w_look + b_look
        logits -= logits.max(axis=1, keepdims=True)
        np.exp(logits, out=logits)
        logits /= logits.sum(axis=1, keepdims=True)
        grad = (logits - targets) * inv_n
        w_next = w_look - step * (z.T @ grad + l2_32 * w_look)
        b_next = b_look - step * grad.sum(axis=0)
        t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        momentum = np.float32((t - 1.0) / t_next)
        w_look = w_next + momentum * (w_next - w)
        b_look = b_next + momentum * (b_next - b)
        w, b, t = w_next, b_next, t_next
    return (w * np.float32(scale)).astype(np.float32), b.astype(np.float32)


class IntentScorer:
    """Scores for `n_classes` classes from example vectors (rows L2-normalised)."""

    def __init__(
        self, vectors: np.ndarray, owners: np.ndarray, n_classes: int, *,
        head_weight: float = DEFAULT_HEAD_WEIGHT, extra_vectors: np.ndarray | None = None,
        extra_owners: np.ndarray | None = None,
    ):
        self.n_classes = n_classes
        owners = np.asarray(owners, dtype=np.int64)
        perm = np.argsort(owners, kind="stable")
        self.matrix = np.ascontiguousarray(vectors[perm], dtype=np.float32)
        self.owners = owners[perm]
        # classes with examples, and where their rows start in the owner-sorted matrix (for reduceat)
        self.present, self.starts = np.unique(self.owners, return_index=True)
        self.head_weight = float(head_weight)
        self.head: tuple[np.ndarray, np.ndarray] | None = None
        if self.head_weight > 0 and n_classes >= 2 and len(self.present) >= 2:
            x, y = self.matrix, self.owners
            if extra_vectors is not None and extra_owners is not None and len(extra_owners):
                x = np.concatenate([x, extra_vectors.astype(np.float32)])
                y = np.concatenate([y, np.asarray(extra_owners, dtype=np.int64)])
            self.head = train_head(x, y, n_classes)

    def nearest(self, queries: np.ndarray) -> np.ndarray:
        """[n, classes] highest cosine to each class's examples (-1 for a class without any)."""
        out = np.full((queries.shape[0], self.n_classes), -1.0, dtype=np.float32)
        if self.matrix.shape[0]:
            sims = queries.astype(np.float32, copy=False) @ self.matrix.T
            out[:, self.present] = np.maximum.reduceat(sims, self.starts, axis=1)
        return out

    def head_log_probs(self, queries: np.ndarray) -> np.ndarray | None:
        if self.head is None:
            return None
        w, b = self.head
        logits = queries.astype(np.float32, copy=False) @ w + b
        logits -= logits.max(axis=1, keepdims=True)
        return logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))

    def score_matrix(self, queries: np.ndarray) -> np.ndarray:
        """[n, classes] scores on the cosine scale (see the module docstring)."""
        queries = np.atleast_2d(queries)
        scores = self.nearest(queries)
        log_probs = self.head_log_probs(queries)
        if log_probs is not None:
            # rank by the product of the two experts; score relative to the chosen class t:
            # score(c) = maxcos(c) + w * (log p(c) - log p(t)), so t keeps exactly its nearest-example cosine
            combined = scores + np.float32(self.head_weight) * log_probs
            top = combined.argmax(axis=1)
            scores = combined - np.float32(self.head_weight) * log_probs[np.arange(len(top)), top][:, None]
        return np.clip(scores, -1.0, 1.0)


class IntentIndex:
    def __init__(self, agent: AgentConfig, embedder: Embedder):
        self.labels: list[tuple[str, str]] = []  # (scenario_id, intent_label) per scenario
        texts: list[str] = []
        owners: list[int] = []
        extra_texts: list[str] = []
        extra_owners: list[int] = []
        for i, scenario in enumerate(agent.scenarios):
            self.labels.append((scenario.id, scenario.intent_label or scenario.id))
            for example in scenario.entry_examples:
                texts.append(example)
                owners.append(i)
            if scenario.entry_examples:
                for text in pseudo_examples(scenario):
                    extra_texts.append(text)
                    extra_owners.append(i)
        head_weight = getattr(agent.navigation, "intent_head_weight", DEFAULT_HEAD_WEIGHT)
        matrix = embed_fixed(embedder, texts) if texts else np.zeros((0, embedder.dimension), np.float32)
        use_head = head_weight > 0 and len(set(owners)) >= 2
        extra = embed_fixed(embedder, extra_texts) if use_head and extra_texts else None
        self.scorer = IntentScorer(
            matrix, np.array(owners, dtype=np.int64), len(self.labels), head_weight=head_weight if use_head else 0.0,
            extra_vectors=extra, extra_owners=np.array(extra_owners, dtype=np.int64) if extra is not None else None,
        )

    @property
    def matrix(self) -> np.ndarray:
        return self.scorer.matrix

    def score_matrix(self, vectors: np.ndarray) -> np.ndarray:
        """Batch form of `scores`: [n, scenarios], scenarios as the agent lists them (benchmarks)."""
        return self.scorer.score_matrix(vectors)

    def scores(self, vector: np.ndarray) -> list[IntentScore]:
        if not self.labels or self.scorer.matrix.shape[0] == 0:
            return []
        row = self.scorer.score_matrix(np.asarray(vector, dtype=np.float32)[None, :])[0]
        ranked = np.argsort(-row, kind="stable")
        return [IntentScore(scenario_id=self.labels[i][0], label=self.labels[i][1], score=float(row[i])) for i in ranked]


def index_digest(agent: AgentConfig) -> str:
    """What the index depends on: scenarios (ids, names, labels, examples) and the head weight."""
    head_weight = getattr(agent.navigation, "intent_head_weight", DEFAULT_HEAD_WEIGHT)
    parts: Sequence[str] = [
        f"{s.id}\x1e{s.name}\x1e{s.intent_label}\x1e" + "\x1e".join(s.entry_examples) for s in agent.scenarios
    ]
    return hashlib.sha256(("\x1f".join(parts) + f"\x1d{head_weight!r}").encode()).hexdigest()


_cache: dict[str, IntentIndex] = {}
_lock = threading.Lock()


def intent_index(tenant_id: str, agent: AgentConfig, embedder: Embedder) -> IntentIndex:
    space = getattr(embedder, "model_name", type(embedder).__name__)  # one index per embedding space
    key = f"{tenant_id}/{agent.id}/{space}/{index_digest(agent)}"
    with _lock:
        if key not in _cache:
            _cache[key] = IntentIndex(agent, embedder)
        return _cache[key]
