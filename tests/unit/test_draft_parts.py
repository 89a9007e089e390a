"""A draft read sentence by sentence (focal.enforcement.draft_parts), on hand-made vectors: one sentence about the
business and none nearest something else: unrelated content, the off-domain bank, the off-business message."""

from __future__ import annotations

import numpy as np

from focal.enforcement.draft_parts import Bank, Sides, read_draft, read_sentences, sentences
from focal.enforcement.off_domain_bank import OFF_DOMAIN_TEXTS
from focal.enforcement.topic import UNRELATED_TEXTS

BANK = {t for texts in OFF_DOMAIN_TEXTS.values() for t in texts}

BUSINESS, MOVE, ELSEWHERE = np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), np.array([0, 0, 1.0])
SIDES = Sides(Bank([BUSINESS], ["intent_same"]), Bank([MOVE], ["intent"]), Bank([ELSEWHERE], ["intent"]))


def plain(cosine: float, kind: str) -> float:
    return cosine


def test_a_draft_splits_at_its_punctuation_and_at_an_emoji_keeping_sentences_of_three_words():
    assert sentences("Jokes aren't my thing 😄 but I'm glad to help with orders. Ok!") == [
        "Jokes aren't my thing 😄", "but I'm glad to help with orders."]
    assert sentences("The capital of Australia is Canberra.") == []  # one piece: the whole draft was the measure


def test_a_sentence_about_the_business_beside_courtesy_shows_the_business():
    courteous, steer_back = np.array([0.3, 0.9, 0.1]), np.array([0.8, 0.3, 0.2])
    reading = read_sentences([courteous, steer_back], SIDES, 0.2, plain)
    assert reading.shows_business and reading.about == 1


def test_one_sentence_nearest_something_else_outweighs_any_sentence_about_the_business():
    """'Happy to help! The capital of Australia is Canberra. Anything else about your order?'"""
    answer, steer_back = np.array([0.2, 0.1, 0.9]), np.array([0.8, 0.3, 0.2])
    reading = read_sentences([answer, steer_back], SIDES, 0.2, plain)
    assert not reading.shows_business and reading.elsewhere == 1
    assert "sentence 1" in str(reading)


def test_courtesy_alone_or_a_sentence_below_the_floor_does_not_show_the_business():
    assert not read_sentences([MOVE, MOVE], SIDES, 0.2, plain).shows_business
    faint = np.array([0.8, 0.5, 0.3])  # nearest the business (0.81), but below a floor of 0.9
    assert not read_sentences([faint], SIDES, 0.9, plain).shows_business
    assert read_sentences([faint], SIDES, 0.8, plain).shows_business


def test_a_sentence_close_to_nothing_is_no_evidence_of_something_else():
    """Nearest unrelated content only by being far from everything (below the floor): it says nothing either way."""
    lost, steer_back = np.array([-0.5, -0.5, 0.1]), np.array([0.8, 0.3, 0.2])
    reading = read_sentences([lost, steer_back], SIDES, 0.2, plain)
    assert reading.shows_business and reading.elsewhere is None
    assert read_sentences([np.array([-0.3, -0.3, 0.5]), steer_back], SIDES, 0.2, plain).elsewhere == 1


def _embedder(vectors: dict[str, np.ndarray]):
    def embed(fresh: list[str], fixed: list[str]) -> tuple[np.ndarray, np.ndarray]:
        def pick(t: str) -> np.ndarray:  # the engine's exemplars: moves and declines, and unrelated content far off
            return vectors.get(t, np.array([0.0, -1.0, 0.0]) if t in UNRELATED_TEXTS or t in BANK else MOVE)
        return np.stack([pick(t) for t in fresh]), np.stack([pick(t) for t in fixed])
    return embed


def test_a_read_back_of_the_thread_counts_as_the_business_when_the_message_alone_is_off_it():
    """'a large margherita' then '12 Main St' (the route lost the thread); the draft reads the order back."""
    readback, message = np.array([0.0, 0.2, 1.0]), np.array([0.0, 0.0, 1.0])
    vectors = {"One large margherita to 12 Main St.": readback, "Is that right for you?": MOVE,
               "a large margherita": np.array([0.3, 0.0, 0.2]), "a large margherita 12 Main St": readback}
    business = Bank([BUSINESS], ["intent_same"])
    parts = ["One large margherita to 12 Main St.", "Is that right for you?"]
    args = ("en", "intent", business, message, True, 0.2, plain)
    alone = read_draft(parts, [], "12 Main St", _embedder(vectors), *args)
    assert not alone.shows_business and alone.elsewhere == 1  # nearest the bare, off-business message
    thread = read_draft(parts, ["a large margherita"], "12 Main St", _embedder(vectors), *args)
    assert thread.shows_business


def test_the_off_domain_bank_in_the_drafts_language_is_something_else():
    """A Spanish sentence that is one of the Spanish off-domain texts sits on the side of something else when the draft
    is Spanish; the German draft's reading does not hold the Spanish texts (it holds the German and English ones)."""
    spanish, german = OFF_DOMAIN_TEXTS["es"][0], OFF_DOMAIN_TEXTS["de"][0]
    vectors = {spanish: np.array([0.2, 0.0, 0.9]), german: np.array([0.0, 0.0, -1.0]),
               "Sobre tu pedido, te ayudo.": BUSINESS, "Die größte Stadt": np.array([0.2, 0.0, 0.9])}
    business = Bank([BUSINESS], ["intent_same"])
    far = np.array([0.0, 0.0, -1.0])
    args = (business, far, False, 0.2, plain)
    spanish_draft = read_draft(["Die größte Stadt", "Sobre tu pedido, te ayudo."], [], "hola", _embedder(vectors),
                               "es", "intent", *args)
    assert spanish_draft.elsewhere == 1
    german_draft = read_draft(["Die größte Stadt", "Sobre tu pedido, te ayudo."], [], "hallo", _embedder(vectors),
                              "de", "intent", *args)
    assert german_draft.shows_business
