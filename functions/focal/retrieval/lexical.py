"""Lexical evidence beside the embedding: how much of a key's wording the message shares, in character n-grams.

A sentence embedding of a short message can sit between rules, or closer to a rule that reads alike than to the
one whose words the message uses ("the reset code never arrived" against a rule about codes that were sent); the
shared wording is evidence the vector blurs. Each text is folded (lower case, accents removed, anything but
letters and digits a space) and cut into the character n-grams of its words (`NGRAMS`, each word padded with a
space at both ends), so inflections and compounds share most of their n-grams, and no word list or language is
involved: it reads English, Spanish, German and French alike. The n-grams are weighted by their rarity among the
agent's own keys (inverse document frequency, over every enabled rule's keys and every flow's entry examples):
what all keys share ("i want", "my ") weighs little, what one key alone says weighs much. A key's lexical score
is the cosine of the two weighted n-gram vectors, in [0, 1].

The weights are computed once per agent config object (a pass over its keys, at most IDF_SAMPLE of them); a key's vector is computed when a
search first meets it and kept, so a query costs only the keys the index returned, whatever the agent's size.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from focal.models.agent import AgentConfig
from focal.per_object import PerObject
from focal.retrieval.rules import KEY_SEPARATOR, agent_rule_keys

NGRAMS = (3, 4, 5)
# A key's score is its calibrated cosine plus this much of its lexical score: measured with `focal bench retrieval` on
# the example agents' labelled sets (0.35 to 0.5 lift recall alike; 0.2 does little).
LEXICAL_WEIGHT = 0.5
_NOT_WORD = re.compile(r"[^0-9a-z]+")
_KEPT_VECTORS = 200_000
# The weights of an agent with more keys come from every k-th key (at most this many): a pass over 400,000 keys would
# hold a large agent's first turn for a minute, and the rarity of an n-gram is read as well from a sample.
IDF_SAMPLE = 5000  # key vectors kept per agent (beyond it the oldest are recomputed when met again)

Vector = dict[str, float]


def fold(text: str) -> str:
    """Lower case, accents removed (NFKD, combining marks dropped; ß → ss), every run of other characters one space."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _NOT_WORD.sub(" ", bare).strip()


def ngrams(text: str) -> Counter[str]:
    """The character n-grams of each folded word, padded with a space at both ends (a word shorter than n is one gram)."""
    grams: Counter[str] = Counter()
    for word in fold(text).split():
        grams.update(_word_grams(word))
    return grams


@lru_cache(maxsize=65536)
def _word_grams(word: str) -> tuple[str, ...]:
    padded, out = f" {word} ", []
    for n in NGRAMS:
        if len(padded) <= n:
            out.append(padded)
            break
        out.extend(padded[i:i + n] for i in range(len(padded) - n + 1))
    return tuple(out)


def key_texts(agent: AgentConfig) -> dict[str, str]:
    """Document id → text of every key the agent's index holds: the enabled rules' keys and the entry examples."""
    out = {doc_id: text for r in agent.rules if r.enabled for doc_id, text in agent_rule_keys(agent, r)}
    out.update({f"{s.id}{KEY_SEPARATOR}{n}": e for s in agent.scenarios for n, e in enumerate(s.entry_examples)})
    return out


class LexicalModel:
    """The agent's n-gram weights and its keys' weighted vectors (computed on first use)."""

    def __init__(self, texts: dict[str, str]):
        self.texts = texts
        df: Counter[str] = Counter()
        sample = list(texts.values())[::max(1, -(-len(texts) // IDF_SAMPLE))]  # every k-th key: at most IDF_SAMPLE
        for text in sample:
            df.update(set(ngrams(text)))
        n = len(sample)
        self.idf = {g: math.log((n + 1) / (c + 1)) + 1.0 for g, c in df.items()}
        self.unseen = math.log(n + 1) + 1.0  # an n-gram no key has: as rare as can be
        self._vectors: dict[str, Vector] = {}
        self._lock = threading.Lock()

    def vector(self, text: str) -> Vector:
        """Sub-linear term frequency times inverse document frequency, L2-normalised."""
        weighted = {g: (1.0 + math.log(c)) * self.idf.get(g, self.unseen) for g, c in ngrams(text).items()}
        norm = math.sqrt(sum(w * w for w in weighted.values()))
        return {g: w / norm for g, w in weighted.items()} if norm else {}

    def key_vector(self, doc_id: str) -> Vector:
        with self._lock:
            hit = self._vectors.get(doc_id)
        if hit is not None:
            return hit
        vec = self.vector(self.texts.get(doc_id, ""))
        with self._lock:
            if len(self._vectors) >= _KEPT_VECTORS:
                self._vectors.pop(next(iter(self._vectors)))
            self._vectors[doc_id] = vec
        return vec

    def scores(self, message: Vector, doc_ids: Iterable[str]) -> dict[str, float]:
        """Document id → cosine of its key's vector with the message's (0 for an id the agent does not have)."""
        return {doc_id: sparse_cosine(message, self.key_vector(doc_id)) for doc_id in doc_ids}


def sparse_cosine(a: Vector, b: Vector) -> float:
    """The dot product of two L2-normalised n-gram vectors (their cosine), walking the shorter one."""
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return sum(w * large.get(g, 0.0) for g, w in small.items())


def hybrid_score(cosine: float, lexical: float) -> float:
    return cosine + LEXICAL_WEIGHT * lexical


lexical_model: PerObject[AgentConfig, LexicalModel] = PerObject(lambda agent: LexicalModel(key_texts(agent)))
