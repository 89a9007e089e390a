"""The multilingual classifier's build reads frozen inputs: the example agents' texts are data
(tests/data/injection_training/example_texts.json), its file records a digest of the training material the
repository holds, and its view vectors are embedded one at a time (the same whatever was embedded before)."""

from __future__ import annotations

import numpy as np

from focal.bench import injection_example_texts
from focal.bench.injection_corpora import example_rows, translated_example_rows, translated_text_sets
from focal.bench.injection_example_texts import FROZEN, frozen_texts, inputs_digest, repository_inputs
from focal.bench.prevalidation_scoring import ViewVectors


def test_the_build_records_the_digest_of_the_repository_inputs_it_read():
    from focal.bench.injection_corpora import Row
    from focal.bench.injection_training_multilingual import _arguments, recorded

    meta = recorded([Row("hello there", False, "banking77", "train")], _arguments([]))
    assert meta["inputs_digest"] == inputs_digest() and meta["train_rows"] == 1


def test_the_inputs_digest_changes_with_the_frozen_texts(monkeypatch, tmp_path):
    before = inputs_digest()
    changed = tmp_path / "example_texts.json"
    changed.write_text(FROZEN.read_text(encoding="utf-8").replace("]", ", []]", 1), encoding="utf-8")
    monkeypatch.setattr(injection_example_texts, "FROZEN", changed)
    monkeypatch.setattr(injection_example_texts, "repository_inputs",
                        lambda: [changed, *repository_inputs()[1:]])
    assert inputs_digest() != before


def test_the_digest_covers_the_frozen_example_texts():
    assert FROZEN in repository_inputs() and all(p.exists() for p in repository_inputs())


def test_the_trainers_read_the_frozen_texts_not_the_example_agents(monkeypatch):
    def no_examples():
        raise AssertionError("the example agents were read live")

    monkeypatch.setattr(injection_example_texts, "_agents", no_examples)
    frozen = frozen_texts()
    assert [r.text for r in translated_example_rows()] == frozen["translated"]
    assert [(r.text, r.attack) for r in example_rows() if r.source == "focal examples"] == \
        [(t, a) for t, a in frozen["examples"]]
    assert [lang for lang, _, _ in translated_text_sets()] == [lang for lang, _, _ in frozen["text_sets"]]


class _BatchDependent:
    """Vectors whose last bits depend on what else is in the batch, as a padded batch's do."""

    model_name = "toy"
    dimension = 2

    def __init__(self):
        self.cleared = 0

    def clear_cache(self):
        self.cleared += 1

    def embed(self, texts):
        return np.array([[len(t), 1.0 + 1e-6 * len(texts)] for t in texts], dtype=np.float32)


def test_view_vectors_embedded_one_at_a_time_do_not_depend_on_what_came_before(tmp_path):
    first = ViewVectors(_BatchDependent(), tmp_path / "a", one_at_a_time=True)
    first.of(["one", "two", "three"])
    second = ViewVectors(_BatchDependent(), tmp_path / "b", one_at_a_time=True)
    second.of(["three"])
    assert np.array_equal(first.of(["three"]), second.of(["three"]))
    batched = ViewVectors(_BatchDependent(), tmp_path / "c")
    batched.of(["one", "two", "three"])
    assert not np.array_equal(batched.of(["three"]), second.of(["three"]))  # what one at a time is for


def test_members_averaged_into_one_file_score_the_mean_of_their_logits():
    from focal.bench.injection_training_multilingual import averaged
    from focal.sensing.injection_classifier import EmbeddingClassifier

    rng = np.random.default_rng(5)

    def member():
        return EmbeddingClassifier((rng.normal(size=(6, 4)).astype(np.float32), rng.normal(size=(4, 1)).astype(np.float32)),
                                   (rng.normal(size=4).astype(np.float32), rng.normal(size=1).astype(np.float32)), 0.5, "toy")

    members = [member(), member(), member()]
    x = rng.normal(size=(10, 6)).astype(np.float32)
    logit = [np.log(m.scores(x) / (1 - m.scores(x))) for m in members]
    expected = 1 / (1 + np.exp(-np.mean(logit, axis=0)))
    assert np.allclose(averaged(members).scores(x), expected, atol=1e-5)
    assert averaged(members).weights[0].shape == (6, 12)
