"""The training pairs of build-time fine-tuning (focal.bench.intents_pairs), checked without torch: every text
of every pair is a training row given (never a validation or test row), labels of pairs are right, in-batch
negatives are true negatives, and the held-out slice is disjoint from what is trained on."""

from __future__ import annotations

import pytest

from focal.bench.intents_pairs import anchor_positive_batches, holdout_split, setfit_pairs

TRAIN = [(f"train {lab} {i}", lab) for lab in ("alpha", "beta", "gamma", "delta") for i in range(5)]
TEST = [(f"test {lab} {i}", lab) for lab in ("alpha", "beta", "gamma", "delta") for i in range(5)]
LABEL = dict(TRAIN)


def test_setfit_pairs_use_train_rows_only_with_right_targets():
    pairs = setfit_pairs(TRAIN, rounds=3, seed=1)
    assert len(pairs) == 3 * 2 * len(TRAIN)
    for a, b, target in pairs:
        assert a in LABEL and b in LABEL  # never a test text
        assert a != b
        assert target == (1.0 if LABEL[a] == LABEL[b] else 0.0)
    assert {t for _, _, t in pairs} == {0.0, 1.0}
    assert setfit_pairs(TRAIN, rounds=3, seed=1) == pairs  # deterministic per seed


def test_a_label_with_one_row_gets_no_positive_pair_with_itself():
    rows = [*TRAIN, ("lonely", "epsilon")]
    pairs = setfit_pairs(rows, rounds=2, seed=0)
    assert not [p for p in pairs if p[0] == "lonely" and p[2] == 1.0]
    with pytest.raises(ValueError, match="two labels"):
        setfit_pairs([("a", "x"), ("b", "x")], rounds=1, seed=0)


def test_in_batch_negatives_are_true_negatives_and_every_row_is_an_anchor_each_round():
    batches = anchor_positive_batches(TRAIN, rounds=2, batch_size=3, seed=0)
    anchors = [a for batch in batches for a, _ in batch]
    assert sorted(anchors) == sorted([t for t, _ in TRAIN] * 2)
    for batch in batches:
        assert 2 <= len(batch) <= 3
        labels = [LABEL[a] for a, _ in batch]
        assert len(set(labels)) == len(labels)  # one pair per label: the other positives are negatives
        for a, p in batch:
            assert p in LABEL and LABEL[p] == LABEL[a] and p != a
    with pytest.raises(ValueError, match="at least 2"):
        anchor_positive_batches(TRAIN, rounds=1, batch_size=1, seed=0)


def test_holdout_is_disjoint_per_label_and_never_empties_a_label():
    train, held = holdout_split(TRAIN, per_label=2, seed=3)
    assert not set(train) & set(held) and sorted(train + held) == sorted(TRAIN)
    assert sorted(lab for _, lab in held) == sorted(["alpha", "beta", "gamma", "delta"] * 2)
    train, held = holdout_split([("x1", "x"), ("y1", "y"), ("y2", "y")], per_label=5, seed=0)
    assert {lab for _, lab in train} == {"x", "y"} and held in ([("y1", "y")], [("y2", "y")])
