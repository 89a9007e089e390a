"""The multilingual embedder adapter (focal.adapters.use_embedder): unit vectors of 512 dimensions, the same sentence
in four languages close together, loaded only when first used."""

from __future__ import annotations

import numpy as np

from focal.adapters.lazy import LazyMultilingualEmbedder
from focal.adapters.use_embedder import UseEmbedder, shared_multilingual_embedder


def test_vectors_are_unit_length_and_a_translation_is_closer_than_another_topic():
    model = shared_multilingual_embedder()
    texts = ["I would like to renew my library book", "Quiero renovar mi libro de la biblioteca",
             "Ich möchte mein Bibliotheksbuch verlängern", "Je voudrais renouveler mon livre de bibliothèque",
             "What time does the store open on Sunday?"]
    vectors = model.embed(texts)
    assert vectors.shape == (5, 512) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sims = vectors @ vectors.T
    for i in (1, 2, 3):
        assert sims[0, i] > sims[4, i] + 0.2


def test_the_model_loads_on_the_first_embed_and_its_id_names_its_files():
    model = UseEmbedder()
    assert model._model is None
    assert len(model.model_id) == 64 and model.model_id == UseEmbedder().model_id
    lazy = LazyMultilingualEmbedder()
    assert lazy.dimension == model.dimension and lazy.model_name == model.model_name
    assert np.allclose(lazy.embed(["hola"]), shared_multilingual_embedder().embed(["hola"]))
