"""A model draft read one sentence at a time, as a two-sided test (focal.enforcement.relevance_verdict.by_sentence):
a draft the relevance check rejects as a whole (below the threshold or the domain floor) passes when its sentences
show the business, and a draft it passes while the customer's message is off the business fails when one of its
sentences sits with something else. A false rejection costs the customer the model's answer, a false pass lets an
off-domain answer through.

The draft as a whole can sit between two subjects: a polite decline ("Jokes aren't my thing 😄 but I'm glad to help
with your bookings, payments and changes") mixes the subject it declines with the business, and a read-back after
the route lost the thread ("a table for two at 7 pm on Friday. Is that right?") mixes the customer's earlier words
with a move. An off-domain answer wrapped in courtesy ("Happy to help! The capital of Australia is Canberra. Anything
else about your booking?") mixes them too — what tells them apart is what its other sentences are.

Each sentence of at least `MIN_WORDS` words is put with the nearest of:
- the business: the agent's own words, and the customer's earlier messages that are themselves about the business
  (at or above the floor);
- a conversational move or a decline (`DECLINES`, written in the four languages for no business in particular);
- something else: the unrelated exemplars (focal.enforcement.topic), the generic off-domain texts in the draft's
  language and English (focal.enforcement.off_domain_bank) and, on the rejection path when it is off the business
  itself, the customer's message — the answer to an off-domain question sits closest to that question.
A sentence is nearest something else only at or above the floor: one far from every side says nothing either way.
The draft shows the business when at least one sentence is about the business (nearest to it and at or above the
floor) and no sentence is nearest to something else. A draft of one piece gains nothing: it was the one measure.
All cosines are put on MiniLM's scale by their pair's languages (the caller's `scored`), like the check's others.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from focal.enforcement.off_domain_bank import elsewhere_texts
from focal.enforcement.relevance_space import SAME
from focal.enforcement.topic import CONVERSATIONAL_MOVES
from focal.sensing.turn_language import ENGLISH

# A sentence ends at its punctuation or, in chat, at an emoji ("Jokes aren't my thing 😄 but …").
_SENTENCE_END = re.compile(r"(?<=[.!?;:…\u2600-\u27bf\U0001f300-\U0001faff])\s+|\n+")
_WORD = re.compile(r"\w{2,}")
MIN_WORDS = 3  # a shorter piece ("Yum!", "Sure.") says nothing about a subject either way
EARLIER_MESSAGES = 3  # how many of the customer's earlier messages a draft may take up

DECLINES: dict[str, tuple[str, ...]] = {
    "en": (
        "Sorry, that's not something I can help with here.",
        "I'm afraid that's outside what I do, but I'm happy to help with anything else.",
        "That's not really my area, I'm afraid.",
        "I can't give advice on that, sorry.",
    ),
    "es": (
        "Lo siento, eso no es algo con lo que pueda ayudarte aquí.",
        "Me temo que eso no es lo mío, pero te ayudo encantado con lo demás.",
        "Eso no es lo mío, la verdad.",
        "No puedo darte consejos sobre eso, lo siento.",
    ),
    "de": (
        "Tut mir leid, dabei kann ich Ihnen hier leider nicht helfen.",
        "Das gehört leider nicht zu meinen Aufgaben, aber sonst helfe ich gern.",
        "Das ist leider nicht meine Stärke.",
        "Dazu kann ich leider keinen Rat geben.",
    ),
    "fr": (
        "Désolé, ce n'est pas quelque chose pour lequel je peux vous aider ici.",
        "Ce n'est malheureusement pas mon rayon, mais je vous aide volontiers pour le reste.",
        "Ce n'est pas vraiment mon domaine, je le crains.",
        "Je ne peux pas vous conseiller là-dessus, désolé.",
    ),
}


def decline_texts(lang: str, exemplar_kind: str) -> list[tuple[str, str]]:
    """The declines in the draft's language and English, with each text's pair kind."""
    return [(t, SAME if code == lang else exemplar_kind) for code, texts in DECLINES.items()
            for t in texts if code in (lang, ENGLISH)]


def sentences(text: str) -> list[str]:
    """The draft's sentences of at least `MIN_WORDS` words; empty when it has fewer than two pieces (then the whole
    draft was the one measure)."""
    parts = [p.strip() for p in _SENTENCE_END.split(text) if p.strip()]
    if len(parts) < 2:
        return []
    return [p for p in parts if len(_WORD.findall(p)) >= MIN_WORDS]


@dataclass(frozen=True)
class Bank:
    """Texts of one side of the test, as vectors with their pair kinds (focal.enforcement.relevance_space)."""
    vectors: Sequence[np.ndarray]
    kinds: Sequence[str]

    def best(self, vec: np.ndarray, scored: Callable[[float, str], float]) -> float:
        return max((scored(_cos(vec, v), k) for v, k in zip(self.vectors, self.kinds, strict=True)), default=-1.0)

    def __add__(self, other: Bank) -> Bank:
        return Bank([*self.vectors, *other.vectors], [*self.kinds, *other.kinds])


@dataclass(frozen=True)
class Sides:
    """The three sides a sentence is put with."""
    business: Bank
    courtesy: Bank   # the conversational moves and the declines
    elsewhere: Bank  # the unrelated exemplars, and the customer's message when it is off the business
    thread: Bank = Bank([], [])   # the customer's earlier messages each followed by the message
    message: Bank = Bank([], [])  # the message alone

    def about(self, vec: np.ndarray, scored: Callable[[float, str], float]) -> float:
        """The sentence's closeness to the business: the agent's words and earlier messages about it, and the thread
        when the sentence takes it up — nearer to it than to the message alone (an answer to the message is not)."""
        thread = self.thread.best(vec, scored)
        return max(self.business.best(vec, scored), thread if thread > self.message.best(vec, scored) else -1.0)


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / ((np.linalg.norm(a) * np.linalg.norm(b)) or 1.0))


@dataclass(frozen=True)
class Reading:
    """The draft's sentences put with their nearest side."""
    about: int             # how many are about the business (nearest to it, at or above the floor)
    elsewhere: int | None  # the first (1-based) nearest to something else, None when none is
    value: float = 0.0     # … its closeness to that

    @property
    def shows_business(self) -> bool:
        return self.about > 0 and self.elsewhere is None

    def __str__(self) -> str:
        if self.elsewhere is not None:
            return f"sentence {self.elsewhere} sits nearest unrelated content or the off-business message ({self.value:.2f})"
        return f"{self.about} of its sentences about the business"


def read_sentences(sentence_vecs: Sequence[np.ndarray], sides: Sides, floor: float,
                   scored: Callable[[float, str], float]) -> Reading:
    """Each sentence put with its nearest side; the reading stops at the first nearest to something else."""
    about = 0
    for i, vec in enumerate(sentence_vecs, 1):
        business, courtesy, elsewhere = (sides.about(vec, scored), sides.courtesy.best(vec, scored),
                                         sides.elsewhere.best(vec, scored))
        if elsewhere >= max(business, courtesy) and elsewhere >= floor:
            return Reading(about, i, elsewhere)
        about += business > courtesy and business >= floor
    return Reading(about, None)


def read_draft(parts: list[str], earlier: list[str], message: str, embed: Callable[[list[str], list[str]], tuple],
               lang: str, exemplar_kind: str, business: Bank, message_vec: np.ndarray, message_off: bool, floor: float,
               scored: Callable[[float, str], float]) -> Reading:
    """The draft's sentences `parts` (from `sentences`) read against the three sides. `embed(fresh, fixed)`: vectors
    in the draft's space (fixed texts kept); `lang`: the draft's language; `exemplar_kind`: the pair kind of the draft
    and the engine's English exemplars; `message_off`: the message sits below the floor (then it is on the side of
    something else: the answer to an off-domain question sits nearest that question)."""
    declines = decline_texts(lang, exemplar_kind)
    unrelated = elsewhere_texts(lang, exemplar_kind)
    fixed_texts = [t for t, _ in declines] + list(CONVERSATIONAL_MOVES) + [t for t, _ in unrelated]
    joined = [f"{t} {message}" for t in earlier]  # the thread a read-back takes up: "a large margherita" + "12 Main St"
    fresh, fixed = embed(parts + earlier + joined, fixed_texts)
    n, m, c = len(parts), len(earlier), len(declines) + len(CONVERSATIONAL_MOVES)
    courtesy = Bank(list(fixed[:c]), [k for _, k in declines] + [exemplar_kind] * len(CONVERSATIONAL_MOVES))
    elsewhere = Bank(list(fixed[c:]), [k for _, k in unrelated])
    if message_off:
        elsewhere = elsewhere + Bank([message_vec], [SAME])
    about = [v for v in fresh[n:n + m] if business.best(v, scored) >= floor]  # earlier messages about the business
    sides = Sides(business + Bank(about, [SAME] * len(about)), courtesy, elsewhere, Bank(list(fresh[n + m:]), [SAME] * m),
                  Bank([message_vec], [SAME]))
    return read_sentences(list(fresh[:n]), sides, floor, scored)
