"""The prompt-injection check: its layers, combined. A message is an attack when any layer says so.

1. heuristics (focal.sensing.injection) on the message with its figures masked (focal.sensing.injection_view);
2. jailbreak vocabulary (focal.sensing.jailbreak_signals): several kinds of jailbreak talk in one message;
3. exemplar similarity (focal.sensing.injection_exemplars) on the view vector;
4. the classifier on the view vector (focal.sensing.injection_classifier), at the threshold its data carries;
   a score under SECOND_OPINION_BELOW flags only when the multilingual classifier (4b) agrees on the view.
Layers 3 and 4 read English views only (focal.sensing.injection_view.read_in_english; in a conversation in
another language, only a view whose own words lean to English): they rest on an English
embedding model, English exemplars and English ordinary messages, and raised false alarms on one ordinary
message in six (exemplars) to one in two (classifier) in other languages.
4b. a view in another language — one `in_english` does not read, or any view of a turn whose language is not
English — is read by the multilingual classifier (focal.sensing.injection_classifier.MULTILINGUAL_DATA_FILE) on
its vector in the multilingual space (use-multilingual-v3, `Deps.multilingual_embedder`), at its threshold for the
view's language (the turn's when the view is too short to tell), chosen on that language's validation messages.
Without that model such a message cannot be checked: `MultilingualSpaceUnavailable`, the turn fails closed.
5. an optional ONNX classifier on the text (the `InjectionClassifier` port, `injection_classifier_dir`).

How they combine (any one flags) and the exemplar and vocabulary settings were chosen on a validation split
of the training sources by `python -m focal.bench.injection_training`; `focal bench prevalidation` measures
the result on sources never trained or tuned on. Each layer gives a reason naming what it found, never the
text. Layers 3 and 4 read the view's vector: the sensor's own vector when the view is the message itself,
else one more embedding (a message with figures or folded characters).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from focal.ports import Embedder, InjectionClassifier
from focal.sensing.injection import heuristic_findings
from focal.sensing.injection_classifier import EmbeddingClassifier, shipped_classifier, shipped_multilingual_classifier
from focal.sensing.injection_exemplars import exemplar_index
from focal.sensing.injection_view import MASK, in_english, injection_view, mask_figures, read_in_english, reuses_vector
from focal.sensing.jailbreak_signals import signal_kinds
from focal.sensing.language import detect
from focal.sensing.lexicon import plain_affirm
from focal.sensing.spaces import MultilingualSpaceUnavailable, embed_message

# An English classifier score between its threshold and this needs the multilingual classifier's agreement (a
# second opinion, another model on another embedding). Chosen on the validation rows of the training sources:
# the highest of 0.6, 0.7, 0.8, 0.9, 0.95 that loses at most 0.5 % of the attacks caught there (0.6: 5 of
# 1,789), while it halves the false alarms on the validation customer messages (45 → 19 of 4,610).
SECOND_OPINION_BELOW = 0.6
# A view of fewer words carries no instruction ("9999", "B-1042", "ok", "VC10234 and 9999"): its vector says
# nothing about an attack, and short codes land anywhere in the embedding space.
MIN_WORDS_FOR_SIMILARITY = 2
# The multilingual classifier needs one word more: two words of another language ("pasado mañana", "après-demain",
# an answer to a date prompt) sit anywhere in its cross-language space and raised its false alarms; an instruction
# of two words is the heuristics' to find, which read every message.
MIN_WORDS_MULTILINGUAL = 3
_WORD = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True)
class InjectionVerdict:
    detected: bool
    reasons: list[str]


def view_vector(text: str, vector: np.ndarray, embedder: Embedder) -> tuple[str, np.ndarray]:
    """The view of `text` and its vector (`vector` itself when the view does not differ from the message)."""
    view = injection_view(text)
    if reuses_vector(text, view):
        return view, np.asarray(vector, dtype=np.float32)
    return view, np.asarray(embedder.embed([view])[0], dtype=np.float32)


def has_words(view: str, least: int = MIN_WORDS_FOR_SIMILARITY) -> bool:
    """Whether the view holds enough words to carry an instruction: `least` words at least (a masked figure is
    none), and more than a plain reply ("yes please", "ok thanks": only the engine's yes-words)."""
    return sum(w != MASK for w in _WORD.findall(view)) >= least and not plain_affirm(view)


def _similar(view_vec: np.ndarray, embedder: Embedder, threshold: float, margin: float,
             extra_attacks: Sequence[str], extra_ordinary: Sequence[str]) -> str | None:
    best, attack_sim, ordinary_sim = exemplar_index(embedder, extra_attacks, extra_ordinary).nearest(view_vec)
    # Both conditions: close to an attack in absolute terms (a message merely far from every ordinary
    # exemplar, like a question from another business's customers, is not an attack), and closer to it than
    # to any ordinary request ("give me my money back" sits near pressure attacks).
    if attack_sim >= threshold and attack_sim - ordinary_sim >= margin:
        return (f"similar to attack exemplar #{best + 1} (cosine {attack_sim:.2f}, "
                f"{attack_sim - ordinary_sim:.2f} closer than to any ordinary request)")
    return None


def reads_multilingual(view: str, lang: str | None) -> bool:
    """Whether the multilingual classifier reads this view: words to read, and another language (by the view
    itself, or the turn's language)."""
    return has_words(view, MIN_WORDS_MULTILINGUAL) and (not in_english(view) or lang not in (None, "en"))


def multilingual_reason(view: str, multilingual: Embedder | None, lang: str | None,
                        model: EmbeddingClassifier | None = None) -> str | None:
    """The multilingual classifier's finding on the view, None when it scores under its threshold.
    `MultilingualSpaceUnavailable` without the multilingual model; `InjectionClassifierUnavailable` when its data
    cannot be read or the embedder is of another model."""
    if multilingual is None:  # checked first: without the model the message cannot be read, whatever the data
        raise MultilingualSpaceUnavailable(lang, "this deployment has no multilingual embedder")
    model = model or shipped_multilingual_classifier()
    model.check_embedder(multilingual)
    vector = embed_message(multilingual, [view], lang)[0]
    score = model.score(vector)
    threshold = model.threshold_for(detect(view)[0] or lang)
    if score >= threshold:
        return f"multilingual injection classifier {score:.2f} ≥ {threshold:.2f}"
    return None


def english_reason(view: str, score: float, model: EmbeddingClassifier, multilingual: Embedder | None,
                   multilingual_model: EmbeddingClassifier | None = None) -> str | None:
    """The English classifier's finding: a score at or above SECOND_OPINION_BELOW on a view whose words tell it is
    English flags alone; a lower score over its threshold, or any score over it on a view too short or too bare
    to tell its language by ("Guten Tag!", a name, two nouns: a model that learnt English reads them as noise),
    flags only when the multilingual classifier agrees on the same view, at its threshold for English (without the
    multilingual model there is no second opinion, and the English score flags alone: never a pass by default)."""
    if score < model.threshold:
        return None
    found = f"injection classifier {score:.2f} ≥ {model.threshold:.2f}"
    if (score >= SECOND_OPINION_BELOW and detect(view)[0] == "en") or multilingual is None:
        return found
    second = multilingual_model or shipped_multilingual_classifier()
    second.check_embedder(multilingual)
    other = second.score(embed_message(multilingual, [view], None)[0])
    return f"{found}, confirmed by the multilingual classifier {other:.2f}" if other >= second.threshold_for("en") else None


def detect_injection(
    text: str,
    vector: np.ndarray | None = None,
    embedder: Embedder | None = None,
    *,
    similarity_threshold: float,
    similarity_margin: float,
    classifier: InjectionClassifier | None = None,
    classifier_threshold: float = 0.5,
    extra_attacks: Sequence[str] = (),
    extra_ordinary: Sequence[str] = (),
    signal_count: int = 0,
    vector_classifier: EmbeddingClassifier | None = None,
    multilingual: Embedder | None = None,
    lang: str | None = None,
    multilingual_classifier: EmbeddingClassifier | None = None,
) -> InjectionVerdict:
    """`vector` is the sensor's embedding of the stripped message; layers 3, 4 and 4b run when it and its
    `embedder` are given. `vector_classifier` None is the shipped one (InjectionClassifierUnavailable when
    its data cannot be read or the embedder is of another model: the check never runs without it); so is
    `multilingual_classifier`, on the vectors of the `multilingual` embedder, for a view in another language or
    of a turn whose language (`lang`) is not English."""
    reasons = [f"pattern: {name}" for name in heuristic_findings(mask_figures(text))]
    view = injection_view(text)
    if signal_count:
        kinds = signal_kinds(view)
        if len(kinds) >= signal_count:
            reasons.append(f"jailbreak vocabulary: {len(kinds)} kinds ({', '.join(kinds)})")
    if vector is not None and embedder is not None:
        model = vector_classifier or shipped_classifier()
        model.check_embedder(embedder)
    if vector is not None and embedder is not None and has_words(view) and read_in_english(view, lang):
        view, view_vec = view_vector(text, vector, embedder)
        near = _similar(view_vec, embedder, similarity_threshold, similarity_margin, extra_attacks, extra_ordinary)
        if near:
            reasons.append(near)
        learnt = english_reason(view, model.score(view_vec), model, multilingual, multilingual_classifier)
        if learnt:
            reasons.append(learnt)
    if vector is not None and embedder is not None and reads_multilingual(view, lang):
        found = multilingual_reason(view, multilingual, lang, multilingual_classifier)
        if found:
            reasons.append(found)
    if classifier is not None:
        score = float(classifier.injection_score(text))
        if score >= classifier_threshold:
            reasons.append(f"classifier score {score:.2f} ≥ {classifier_threshold:.2f}")
    return InjectionVerdict(detected=bool(reasons), reasons=reasons)
