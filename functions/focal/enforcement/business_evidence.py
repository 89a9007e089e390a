"""More evidence that a model draft is about the agent's business, read only when the whole draft falls below the
domain floor (focal.enforcement.domain_fit) — a false rejection costs the customer the model's answer.

- The draft's sentences one at a time. A polite decline ("Jokes aren't my thing 😄 but I'm glad to help with your
  orders, returns and deliveries") mixes the off-domain subject it declines with a sentence about the business, and
  the draft as a whole sits between the two. A sentence counts when it sits closer to the agent's own words than to
  the conversational moves: a courteous "You're welcome!" before a tangent is no evidence of the business, and the
  tangent itself sits below the floor.
- The conversation's earlier customer messages that are about the business themselves (their closeness to the
  agent's own words above the floor): a draft that takes up what the customer said a turn before ("a large margherita
  to 12 Main Street", when the route lost the thread at "12 Main Street") is about the business as much as that
  message is. It counts for the lesser of the message's fit and the draft's closeness to it.

Both are put on MiniLM's scale by the caller's `scored` (the pair's languages), like every other cosine of the check.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from focal.enforcement.relevance_space import SAME

# A sentence ends at its punctuation or, in chat, at an emoji ("Jokes aren't my thing 😄 but …").
_SENTENCE_END = re.compile(r"(?<=[.!?;:…\u2600-\u27bf\U0001f300-\U0001faff])\s+|\n+")
_WORD = re.compile(r"\w{2,}")
MIN_WORDS = 3  # a shorter piece ("Yum!", "Passt das so?") says nothing about a business either way
EARLIER_MESSAGES = 2  # how many of the customer's earlier messages a draft may take up


def sentences(text: str) -> list[str]:
    """The draft's sentences of at least `MIN_WORDS` words; empty when it has fewer than two sentences (then the
    whole draft was the one measure)."""
    parts = [p.strip() for p in _SENTENCE_END.split(text) if p.strip()]
    if len(parts) < 2:
        return []
    return [p for p in parts if len(_WORD.findall(p)) >= MIN_WORDS]


@dataclass(frozen=True)
class Words:
    """The agent's own words (vectors with their pair kinds) and the conversational moves, in the draft's space."""
    own: Sequence[np.ndarray]
    own_kinds: Sequence[str]
    moves: Sequence[np.ndarray]
    move_kind: str


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / ((np.linalg.norm(a) * np.linalg.norm(b)) or 1.0))


def own_fit(vec: np.ndarray, words: Words, scored: Callable[[float, str], float]) -> float:
    """The best closeness of `vec` to the agent's own words, on MiniLM's scale."""
    return max((scored(_cos(vec, v), k) for v, k in zip(words.own, words.own_kinds, strict=True)), default=-1.0)


def best_sentence(sentence_vecs: Sequence[np.ndarray], words: Words, scored: Callable[[float, str], float]) -> float:
    """The best fit to the agent's own words among the sentences closer to those words than to any move."""
    best = -1.0
    for vec in sentence_vecs:
        fit = own_fit(vec, words, scored)
        move = max((scored(_cos(vec, v), words.move_kind) for v in words.moves), default=-1.0)
        if fit > move:
            best = max(best, fit)
    return best


def taken_up(answer_vec: np.ndarray, earlier_vecs: Sequence[np.ndarray], words: Words,
             scored: Callable[[float, str], float], floor: float) -> float:
    """The best evidence from the earlier customer messages about the business (fit ≥ `floor`): the lesser of
    that message's fit and the draft's closeness to it."""
    best = -1.0
    for vec in earlier_vecs:
        fit = own_fit(vec, words, scored)
        if fit >= floor:
            best = max(best, min(fit, scored(_cos(answer_vec, vec), SAME)))
    return best


def more_evidence(embed: Callable[[list[str]], np.ndarray], scored: Callable[[float, str], float], text: str,
                  earlier: list[str], answer_vec: np.ndarray, words: Words, floor: float) -> tuple[float, str]:
    """The draft's best evidence of the business beyond its whole closeness, and where it was found: its best
    sentence, or an earlier customer message about the business that it takes up. (-1, "") when there is none.
    `embed`: vectors of fresh texts in the draft's space; `scored`: a cosine on MiniLM's scale by its pair kind."""
    parts = sentences(text)
    if not parts and not earlier:
        return -1.0, ""
    vecs = embed(parts + earlier)
    sentence = best_sentence(list(vecs[: len(parts)]), words, scored)
    took = taken_up(answer_vec, list(vecs[len(parts):]), words, scored, floor)
    return (sentence, "a sentence of it") if sentence >= took else (took, "an earlier message about the business it takes up")
