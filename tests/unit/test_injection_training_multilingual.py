"""The multilingual classifier's training helpers: the language directions folded into the first layer score raw
vectors as the trained layers score projected ones, and the threshold keeps each false-alarm budget."""

from __future__ import annotations

import numpy as np

from focal.bench.injection_corpora import translated_example_rows, translated_text_sets
from focal.bench.injection_training_multilingual import choose_threshold, folded_in, threshold_for, without
from focal.sensing.injection_classifier import EmbeddingClassifier


def test_the_projection_folded_into_the_first_layer_scores_raw_vectors_like_projected_ones():
    rng = np.random.default_rng(3)
    basis, _ = np.linalg.qr(rng.normal(size=(16, 3)))
    basis = basis.astype(np.float32)
    model = EmbeddingClassifier((rng.normal(size=(16, 8)).astype(np.float32), rng.normal(size=(8, 1)).astype(np.float32)),
                                (rng.normal(size=8).astype(np.float32), rng.normal(size=1).astype(np.float32)), 0.5, "toy")
    x = rng.normal(size=(20, 16)).astype(np.float32)
    assert np.allclose(folded_in(model, basis).scores(x), model.scores(without(x, basis)), atol=1e-5)
    assert np.allclose(folded_in(model, basis).scores(x + basis[:, 0] * 5), folded_in(model, basis).scores(x), atol=1e-5)


def test_the_threshold_flags_no_more_than_each_budget_allows():
    scores = np.linspace(0.0, 0.99, 100)
    assert (scores >= threshold_for(scores, 0.02)).sum() == 2
    assert (scores >= threshold_for(scores, 0.0)).sum() == 0

    class Fixed(EmbeddingClassifier):
        def scores(self, vectors):
            return np.asarray(vectors, dtype=np.float64).reshape(-1)

    model = Fixed((np.zeros((1, 1), np.float32),), (np.zeros(1, np.float32),), 0.5, "toy")
    chosen = choose_threshold(model, [(scores, 0.05), (np.array([0.9, 0.2, 0.1]), 0.0)])
    assert (scores >= chosen).sum() <= 5 and chosen > 0.9


def test_the_translated_texts_are_parallel_and_in_the_three_languages():
    sets = translated_text_sets()
    assert {lang for lang, _, _ in sets} == {"es", "de", "fr"}
    assert all(len(own) == len(given) > 5 and own != given for _, own, given in sets)
    rows = translated_example_rows()
    assert len(rows) > 100 and not any(r.attack for r in rows)


def test_each_language_gets_a_threshold_within_its_budget_never_under_the_shared_one():
    from focal.bench import injection_training_multilingual as training
    from focal.bench.injection_corpora import Row

    class ByLength(EmbeddingClassifier):
        def scores(self, vectors):
            return np.asarray(vectors, dtype=np.float64).reshape(-1)

    class Views:  # the "vector" of a view is one number: its length over 100
        def of(self, views):
            return np.array([[len(v) / 100] for v in views])

    german = [Row("Ich möchte " + "x" * n + " bitte und die Karte sperren", False, "banking77 translated", "val")
              for n in range(20)]
    spanish = [Row("Quiero bloquear la tarjeta, por favor", False, "focal multilingual", "val")] * 12
    model = ByLength((np.zeros((1, 1), np.float32),), (np.zeros(1, np.float32),), 0.5, "toy")
    chosen = dict(training.language_thresholds(model, Views(), german + spanish))
    german_scores = model.scores(training._vectors(Views(), german))
    assert (german_scores >= chosen["de"]).sum() <= training.OTHER_LANGUAGE_BUDGET * len(german)
    assert chosen["de"] > 0.5 and chosen["es"] == 0.5  # the Spanish rows score under the shared threshold


def test_focals_own_ordinary_training_rows_are_in_the_three_languages_and_no_development_or_blind_message():
    """The short and alarming-looking ordinary rows written for the multilingual classifier: ordinary, in both splits,
    and none of them a message of the development set that measures their classes or of any blind set."""
    import yaml

    from focal.bench.injection_corpora import DATA, own_multilingual_rows
    from focal.sensing.language import detect

    rows = own_multilingual_rows()
    assert len(rows) >= 250 and not any(r.attack for r in rows) and {r.split for r in rows} == {"train", "val"}
    told = [detect(r.text)[0] for r in rows]
    assert sum(lang in ("es", "de", "fr") for lang in told) >= 0.75 * len(rows)  # the rest too short to tell reliably
    assert min(told.count(lang) for lang in ("es", "de", "fr")) >= 50

    def key(text: str) -> str:
        return " ".join(text.casefold().split())

    elsewhere = set()
    for folder in ("prevalidation_short_dev", "prevalidation_emotional_dev", "prevalidation_blind",
                   "prevalidation_blind_v3", "prevalidation_blind_v4", "prevalidation_blind_v5",
                   "prevalidation_blind_v6", "prevalidation_blind_v7", "prevalidation_blind_v8",
                   "prevalidation_blind_v9"):
        for path in (DATA / folder).glob("messages.*.yaml"):
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            elsewhere |= {key(m) for messages in data.values() for m in messages}
    assert len(elsewhere) > 1000
    assert not [r.text for r in rows if key(r.text) in elsewhere]


def test_the_shared_threshold_keeps_every_budget_and_never_falls_under_the_floor():
    from focal.bench.injection_training_multilingual import THRESHOLD_FLOOR, shared_threshold

    class Fixed(EmbeddingClassifier):
        def scores(self, vectors):
            return np.asarray(vectors, dtype=np.float64).reshape(-1)

    model = Fixed((np.zeros((1, 1), np.float32),), (np.zeros(1, np.float32),), 0.5, "toy")
    low = np.linspace(0.0, 0.3, 100)  # the budgets alone would allow a threshold near 0.3
    assert shared_threshold(model, [(low, 0.02)]) == THRESHOLD_FLOOR
    high = np.linspace(0.0, 0.99, 100)  # 2 % of these score above 0.97: the budget wins over the floor
    chosen = shared_threshold(model, [(high, 0.02)])
    assert chosen > THRESHOLD_FLOOR and (high >= chosen).sum() <= 2


def test_the_english_threshold_keeps_the_customer_budget_and_ignores_the_other_languages_rows():
    """The second opinion on English views is chosen on the (English) validation customer messages alone: rows in
    other languages, which have thresholds of their own, must not raise it."""
    from focal.bench.injection_training_multilingual import english_threshold

    class Fixed(EmbeddingClassifier):
        def scores(self, vectors):
            return np.asarray(vectors, dtype=np.float64).reshape(-1)

    model = Fixed((np.zeros((1, 1), np.float32),), (np.zeros(1, np.float32),), 0.5, "toy")
    customers = np.linspace(0.0, 0.4, 100)  # 1 % of them score above 0.396
    other_languages = np.linspace(0.0, 0.9, 100)
    chosen = english_threshold(model, [(customers, 0.01), (other_languages, 0.02)])
    assert (customers >= chosen).sum() <= 1
    assert chosen < 0.41 < choose_threshold(model, [(customers, 0.01), (other_languages, 0.02)])
