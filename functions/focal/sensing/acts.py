"""Dialogue acts without a model: a lexicon first, then similarity to small built-in exemplar sets.

The lexicon catches the short, common forms ("yes", "cancel"); the exemplars catch paraphrases
("sounds good to me", "I'd rather not continue with this"). A message that hedges ("maybe",
"not sure") is never read as affirm or deny: that is what the stuck-user fallback is for.
"""

from __future__ import annotations

import hashlib
import threading

import numpy as np

from focal.ports import Embedder, embed_fixed
from focal.sensing import inquiry, lexicon, reply_words

EXEMPLARS: dict[str, tuple[str, ...]] = {
    "affirm": (
        "yes please", "yes, go ahead", "sounds good to me", "that's fine, do it", "sure thing",
        "yes that is correct", "alright, proceed", "please go ahead with it", "yep, that works", "I agree",
        "ok, go for it", "perfect, do it",
    ),
    "deny": (
        "no thanks", "no, don't do that", "that's not what I want", "no, that's wrong", "I don't want that",
        "please don't", "no, leave it as it is", "nope, not that",
    ),
    "cancel": (
        "forget it", "never mind", "I don't want to do this anymore", "stop this please", "let's drop it",
        "I changed my mind, stop", "cancel that request", "abort this", "I'd rather not continue with this",
        "I don't want it anymore",
    ),
    "chitchat": (
        "how are you today?", "thanks a lot", "you're very helpful", "good morning", "have a nice day",
        "thank you so much", "that's great, thanks", "hello there", "what's your name?", "that's all, thank you",
    ),
    # a question about what would happen, not a request to do it now (answered with a question, never an action)
    "hypothetical": (
        "what would happen if I did that?", "if I did that, would I get my money back?", "hypothetically, could I do that?",
        "I'm just asking how it works, I don't want to do it now", "suppose I wanted to, how would that work?",
        "would I be able to do that later if I needed to?", "in case I ever need it, how does that work?",
        "I'm only curious, I'm not doing it yet", "if I went ahead with it, what would happen next?",
    ),
}
ACTS = (*EXEMPLARS, "handoff")  # the request for a person: by its meaning alone, in every language (`heard`)


class ActIndex:
    def __init__(self, embedder: Embedder):
        texts = [t for act in EXEMPLARS for t in EXEMPLARS[act]]
        self.owners = np.array([i for i, act in enumerate(EXEMPLARS) for _ in EXEMPLARS[act]], dtype=np.int64)
        self.matrix = embed_fixed(embedder, texts)

    def similarities(self, vector: np.ndarray) -> dict[str, float]:
        sims = self.matrix @ vector
        best = np.full(len(EXEMPLARS), -1.0, dtype=np.float32)
        np.maximum.at(best, self.owners, sims)
        return {act: float(best[i]) for i, act in enumerate(EXEMPLARS)}


_cache: dict[tuple[int, str], ActIndex] = {}
_lock = threading.Lock()
_DIGEST = hashlib.sha256(repr(EXEMPLARS).encode()).hexdigest()


def act_index(embedder: Embedder) -> ActIndex:
    key = (id(embedder), _DIGEST)
    with _lock:
        if key not in _cache:
            _cache[key] = ActIndex(embedder)
        return _cache[key]


LEXICON = {
    "affirm": lexicon.is_affirm,
    "deny": lexicon.is_deny,
    "cancel": lexicon.is_cancel,
    "chitchat": lexicon.is_greeting,
    "hypothetical": lexicon.is_hypothetical,
}


def detect_acts(text: str, similarities: dict[str, float] | None, threshold: float,
                heard: dict[str, str] | None = None) -> dict[str, str]:
    """act → how it was recognised ("lexicon" or "similarity 0.87"), for the acts the message expresses.
    `heard`: acts already recognised by their meaning in the multilingual space (focal.sensing.person_request): the
    request for a person is heard there alone, in English too (no phrase table: "I spoke to a real person last time"
    asks for nobody)."""
    found: dict[str, str] = {}
    for act in ACTS:
        if act in LEXICON and LEXICON[act](text):
            found[act] = "lexicon"
        elif similarities and similarities.get(act, -1.0) >= threshold:
            found[act] = f"similarity {similarities[act]:.2f}"
        elif heard and act in heard:
            found[act] = heard[act]
    if lexicon.is_unsure(text):
        found.pop("affirm", None)
        if found.get("deny") != "lexicon":  # "hmm, no" is a no; "I'm not sure that's right" is neither
            found.pop("deny", None)
    if lexicon.has_reservation(text):  # "yes please don't", "sounds good, but only half": no confirmation
        found.pop("affirm", None)
    if "affirm" in found and "deny" in found:  # "yes... no" — the lexicon reading wins
        found.pop("affirm" if found["deny"] == "lexicon" else "deny")
    return found


def only_asks(text: str) -> bool:
    """The message asks something (in any of the languages' forms) and asks nothing to be done. An indirect question
    ("quiero saber si puedo cancelar", "je voudrais savoir si…") asks, whatever its embedded clause says, unless a
    stop comes before it; a request in front of it asks to be told ("¿puede decirme si…?")."""
    if (at := reply_words.indirect_question(text)) is not None:
        return not lexicon.is_cancel(text[:at])
    asks = inquiry.asks_anything(text) or "¿" in text or reply_words.opens_with("question", text)
    return asks and not inquiry.asks_to_act(text) and not reply_words.contains("request", text)


def asks_about_cancelling(text: str) -> bool:
    """The message asks a question about cancelling rather than telling the agent to stop: each sentence with a
    stop word in it asks something (an interrogative sentence, in any of the languages' forms, or a request to be
    told) and asks nothing to be done ("what is the fee if I have to cancel later?", "¿cuánto cuesta cancelar?",
    "can I cancel later? yes go ahead" — not "cancel that", "can you cancel it?", "¿puede cancelarla?", "what's
    the fee? cancel it anyway"). With no stop word to place (heard by its meaning), the whole message is judged."""
    said = [s for s in inquiry.sentences(text) if lexicon.is_cancel(s)] or [text]
    return all(only_asks(s) for s in said)


MODEL_ONLY_YES = "the model's yes, not read offline"  # a note: the yes rests on the model's reading alone
_CONTRARY = ("deny", "cancel", "hypothetical")


def model_yes_doubt(text: str, offline_notes: list[str]) -> str | None:
    """Why a model's reading of the message as a yes must be set aside (None: it may stand).

    The model is one witness of a yes that runs side effects; the message itself must not contradict it:
    a yes taken back or under a condition, a question ("what is your policy on …?" answers nothing), an
    unsure message, or one the offline reading heard as a no, a stop or a hypothetical."""
    if lexicon.has_reservation(text):
        return "the message takes it back or puts a condition on it"
    if lexicon.is_question(text):
        return "the message asks a question"
    if lexicon.is_unsure(text):
        return "the message is unsure"
    heard = next((act for act in _CONTRARY if any(n.startswith(f"act {act} (") for n in offline_notes)), None)
    return f"the offline reading heard {heard}" if heard else None


def offline_heard_yes(offline_notes: list[str]) -> bool:
    return any(n.startswith("act affirm (") for n in offline_notes)
