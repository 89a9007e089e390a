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
