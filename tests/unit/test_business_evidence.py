"""More evidence of the business for a draft below the domain floor: its sentences one at a time, and an earlier
customer message about the business that it takes up (focal.enforcement.business_evidence), on hand-made vectors."""

from __future__ import annotations

import numpy as np

from focal.enforcement.business_evidence import Words, best_sentence, more_evidence, sentences, taken_up

BUSINESS, MOVE, JOKE = np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), np.array([0, 0, 1.0])
WORDS = Words([BUSINESS], ["intent_same"], [MOVE], "intent")


def plain(cosine: float, kind: str) -> float:
    return cosine


def test_a_draft_splits_at_its_punctuation_and_at_an_emoji_keeping_sentences_of_three_words():
    assert sentences("Jokes aren't my thing 😄 but I'm glad to help with orders. Ok!") == [
        "Jokes aren't my thing 😄", "but I'm glad to help with orders."]
    assert sentences("The capital of Australia is Canberra.") == []  # one sentence: the whole draft was the measure


def test_a_sentence_counts_only_when_it_sits_closer_to_the_agents_words_than_to_a_move():
    courteous = np.array([0.5, 0.8, 0.0])  # "Happy to help with that one!"
    steer_back = np.array([0.7, 0.3, 0.2])  # "but I'm glad to help with your orders"
    assert best_sentence([courteous, JOKE], WORDS, plain) == -1.0
    assert np.isclose(best_sentence([JOKE, steer_back], WORDS, plain), 0.7 / np.linalg.norm(steer_back))


def test_an_earlier_message_counts_only_when_it_is_about_the_business_and_the_draft_takes_it_up():
    order = np.array([0.9, 0.0, 0.44])  # "a large margherita"
    draft = np.array([0.6, 0.0, 0.8])
    assert taken_up(draft, [JOKE], WORDS, plain, floor=0.2) == -1.0  # the earlier message is off the business too
    took = taken_up(draft, [order], WORDS, plain, floor=0.2)
    fit = 0.9 / np.linalg.norm(order)
    closeness = float(draft @ order) / np.linalg.norm(order)
    assert np.isclose(took, min(fit, closeness))


def test_the_best_evidence_says_where_it_was_found_and_nothing_is_embedded_for_a_single_sentence():
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.stack([np.array([0.7, 0.3, 0.2]) if "orders" in t else JOKE for t in texts])

    assert more_evidence(embed, plain, "A single sentence here.", [], JOKE, WORDS, 0.2) == (-1.0, "")
    assert calls == []
    fit, where = more_evidence(embed, plain, "Jokes are not my thing. I help with orders though.", [], JOKE, WORDS, 0.2)
    assert where == "a sentence of it" and fit > 0.5
