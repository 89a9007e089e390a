"""What each layer of the injection check makes of many messages at once, and the choice of how they combine.

Used by the classifier's training (to choose its threshold and the exemplar settings on the validation
split) and by `focal bench prevalidation` (to measure them on held-out sources). View vectors (focal.sensing
.injection_view) are kept on disk per embedding model, so ~70k messages are embedded once.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from focal.models.agent import AgentConfig
from focal.ports import Embedder
from focal.sensing.injection_classifier import EmbeddingClassifier
from focal.sensing.injection_exemplars import exemplar_index
from focal.sensing.injection_verdict import has_words
from focal.sensing.injection_view import in_english, injection_view
from focal.sensing.jailbreak_signals import signal_kinds
from focal.sensing.prevalidation import blocking_failures, prevalidate

FA_BUDGET = 0.01  # false alarms allowed on the validation split's customer messages (half the 2 % target)
OTHER_LANGUAGE_BUDGET = 0.02  # … and on its ordinary messages in other languages (a small set: 2 in 105)


class ViewVectors:
    """Vectors of message views, from a cache file (one per model) or the embedder."""

    def __init__(self, embedder, cache_dir: Path | None, one_at_a_time: bool = False):
        self.embedder = embedder
        model = str(getattr(embedder, "model_id", getattr(embedder, "model_name", "embedder")))
        name = hashlib.sha256(model.encode()).hexdigest()[:16]
        # A view embedded in a batch differs from the same view embedded alone in its last bits (the batch's
        # padding), and a classifier's training amplifies that: vectors embedded one at a time, as at run time,
        # are the same whatever else was embedded before (kept in a file of their own).
        self.one_at_a_time = one_at_a_time
        kept = f"injection-views-{name}{'-alone' if one_at_a_time else ''}.npz"
        self.path = cache_dir / kept if cache_dir else None
        self.known: dict[bytes, np.ndarray] = {}
        self.embedded = 0
        if self.path is not None and self.path.exists():
            with np.load(self.path, allow_pickle=False) as data:
                self.known = {bytes(k): v for k, v in zip(data["keys"], data["vectors"], strict=True)}

    @staticmethod
    def _key(view: str) -> bytes:
        return hashlib.sha256(view.encode("utf-8", "surrogatepass")).digest()

    def of(self, views: Sequence[str], chunk: int = 2048) -> np.ndarray:
        missing = list(dict.fromkeys(v for v in views if self._key(v) not in self.known))
        if missing and self.one_at_a_time and hasattr(self.embedder, "clear_cache"):
            self.embedder.clear_cache()  # its memory may hold a vector embedded in a batch
        for start in range(0, len(missing), chunk):
            part = missing[start:start + chunk]
            vectors = np.asarray([self.embedder.embed([v])[0] for v in part] if self.one_at_a_time
                                 else self.embedder.embed(part), dtype=np.float32)
            self.known.update((self._key(v), vec) for v, vec in zip(part, vectors, strict=True))
            self.embedded += len(part)
            self._save()
        return np.stack([self.known[self._key(v)] for v in views]) if views else np.zeros((0, self.embedder.dimension))

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.known)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.frombuffer(b"".join(keys), np.uint8).reshape(len(keys), 32),
                 vectors=np.stack([self.known[k] for k in keys]).astype(np.float32))
        tmp.replace(self.path)


@dataclass
class Scored:
    """Per message: blocked by a check that is neither similarity, vocabulary nor classifier (`other`), its
    failed check names, kinds of jailbreak talk, exemplar cosines, whether the view has words and is English
    (`readable`: the classifier reads it), and the view vector (the classifier's input)."""

    other: np.ndarray
    checks: list[list[str]]
    kinds: np.ndarray
    attack_sim: np.ndarray
    ordinary_sim: np.ndarray
    worded: np.ndarray
    readable: np.ndarray
    vectors: np.ndarray

    def subset(self, mask: np.ndarray) -> Scored:
        idx = np.flatnonzero(mask)
        return Scored(self.other[idx], [self.checks[i] for i in idx], self.kinds[idx], self.attack_sim[idx],
                      self.ordinary_sim[idx], self.worded[idx], self.readable[idx], self.vectors[idx])


def score_texts(agent: AgentConfig, texts: Sequence[str], views: ViewVectors) -> Scored:
    pre = agent.pre_validation
    bare = agent.model_copy(update={"pre_validation": pre.model_copy(update={"injection_signal_count": 0})})
    checks = [[c.name for c in blocking_failures(prevalidate(bare, t, None, None, None))] for t in texts]
    view_texts = [injection_view(t) for t in texts]
    vectors = views.of(view_texts)
    index = exemplar_index(views.embedder, pre.extra_attack_exemplars, pre.extra_ordinary_exemplars)
    attack_sim = (vectors @ index.attacks.T).max(axis=1) if len(texts) else np.zeros(0)
    ordinary_sim = (vectors @ index.ordinary.T).max(axis=1) if len(texts) else np.zeros(0)
    return Scored(
        other=np.array([bool(c) for c in checks], bool), checks=checks,
        kinds=np.array([len(signal_kinds(v)) for v in view_texts], int),
        attack_sim=attack_sim, ordinary_sim=ordinary_sim,
        worded=np.array([has_words(v) for v in view_texts], bool),
        readable=np.array([has_words(v) and in_english(v) for v in view_texts], bool), vectors=vectors,
    )


@dataclass(frozen=True)
class Setting:
    """How the layers combine: exemplar cosine and margin, kinds of jailbreak talk, classifier threshold."""

    cosine: float
    margin: float
    talk: int
    classifier: float

    def blocked(self, s: Scored, clf: np.ndarray) -> np.ndarray:
        near = s.readable & (s.attack_sim >= self.cosine) & (s.attack_sim - s.ordinary_sim >= self.margin)
        talk = s.kinds >= self.talk if self.talk else np.zeros(len(s.other), bool)
        return s.other | near | talk | (s.readable & (clf >= self.classifier))


def classifier_scores(model: EmbeddingClassifier, s: Scored) -> np.ndarray:
    return model.scores(s.vectors) if len(s.other) else np.zeros(0)


def _lowest_threshold(base: np.ndarray, clf: np.ndarray, s: Scored, budget: float) -> float:
    """The lowest classifier threshold keeping the false alarms of `s` within budget, given `base` alarms."""
    free = np.sort(clf[~base & s.readable])[::-1]
    allowed = int(budget * len(base)) - int(base.sum())
    if allowed < 0:
        return 2.0
    return float(free[allowed]) + 1e-6 if allowed < len(free) else 0.0


def choose_setting(attacks: Scored, model: EmbeddingClassifier, ordinary: list[tuple[Scored, float]],
                   ) -> tuple[Setting, float, float]:
    """The setting with the most validation attacks caught while each pool of ordinary messages keeps its false
    alarms within its budget; ties go to the stricter one. Returns (setting, caught, false alarms on the first
    pool)."""
    a_clf = classifier_scores(model, attacks)
    pools = [(p, classifier_scores(model, p), b) for p, b in ordinary]
    first, first_clf, _ = pools[0]
    best: tuple[tuple[float, ...], Setting] | None = None
    for talk in (0, 6, 5, 4, 3, 2):
        for cosine in np.round(np.arange(0.40, 1.001, 0.04), 2):
            for margin in (0.0, 0.05, 0.1, 0.15, 0.2, 0.3):
                base = Setting(float(cosine), margin, talk, 2.0)
                threshold = max(_lowest_threshold(base.blocked(p, c), c, p, b) for p, c, b in pools)
                if threshold > 1.0:
                    continue
                setting = Setting(float(cosine), margin, talk, round(min(max(threshold, 0.05), 0.99), 4))
                if any(setting.blocked(p, c).mean() > b for p, c, b in pools):
                    continue
                key = (float(setting.blocked(attacks, a_clf).mean()), talk or 99, cosine, margin)
                if best is None or key > best[0]:
                    best = (key, setting)
    setting = best[1] if best is not None else Setting(1.01, 1.0, 0, 0.99)
    return setting, float(setting.blocked(attacks, a_clf).mean()), float(setting.blocked(first, first_clf).mean())


def per_message_us(agent: AgentConfig, messages: list[str], embedder: Embedder, repeat: int = 5,
                   multilingual: Embedder | None = None) -> tuple[float, float]:
    """(p50, p95) microseconds of `prevalidate` per message, exemplars warm, vectors precomputed (a message in
    another language: its multilingual vector memoised by the embedder after the first round)."""
    vectors = embedder.embed([m.strip() for m in messages])
    prevalidate(agent, messages[0], vectors[0], embedder, multilingual=multilingual)  # warm-up: exemplar embeddings
    times = []
    for _ in range(repeat):
        for message, vector in zip(messages, vectors, strict=True):
            t0 = time.perf_counter()
            prevalidate(agent, message, vector, embedder, multilingual=multilingual)
            times.append((time.perf_counter() - t0) * 1e6)
    return float(np.percentile(times, 50)), float(np.percentile(times, 95))
