"""Training pairs for build-time contrastive fine-tuning of the sentence encoder (scripts/finetune_intents.py).

Pure Python (no torch, no numpy): the engine never imports this module; the build-time script does, and the
tests check offline that pairs come from the TRAIN rows given and from nothing else.

Two pair kinds, both built only from the (text, label) rows passed in:
- `setfit_pairs`: SetFit-style (Tunstall et al. 2022) labelled pairs, per round one same-label and one
  different-label partner for every row: (a, b, 1.0) and (a, c, 0.0), for a cosine-similarity loss;
- `anchor_positive_batches`: batches of (anchor, positive) pairs of the same label with every label at most
  once per batch, so that every other pair in the batch is a true negative (in-batch negatives loss).

`holdout_split` cuts a validation slice out of the training rows (per label), for choosing hyper-parameters
without the test split.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

Row = tuple[str, str]  # (text, label)


def _by_label(rows: Sequence[Row]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for text, label in rows:
        out.setdefault(label, []).append(text)
    return out


def setfit_pairs(rows: Sequence[Row], rounds: int, seed: int) -> list[tuple[str, str, float]]:
    """`rounds` × 2 pairs per row: a same-label partner (target 1.0) and a different-label one (0.0).
    A label with one row only gets no positive pair (there is no partner other than itself)."""
    rng = random.Random(seed)
    by_label = _by_label(rows)
    labels = sorted(by_label)
    if len(labels) < 2:
        raise ValueError("contrastive pairs need at least two labels in the training rows")
    pairs: list[tuple[str, str, float]] = []
    for _ in range(rounds):
        for text, label in rows:
            same = [t for t in by_label[label] if t != text]
            if same:
                pairs.append((text, rng.choice(same), 1.0))
            other = rng.choice([lab for lab in labels if lab != label])
            pairs.append((text, rng.choice(by_label[other]), 0.0))
    rng.shuffle(pairs)
    return pairs


def anchor_positive_batches(rows: Sequence[Row], rounds: int, batch_size: int, seed: int) -> list[list[tuple[str, str]]]:
    """Per round every row is an anchor once, with a random other row of its label as positive; the pairs are
    grouped into batches in which no label occurs twice (any other pair's positive is a true negative)."""
    if batch_size < 2:
        raise ValueError("batch_size must be at least 2 (in-batch negatives)")
    rng = random.Random(seed)
    by_label = _by_label(rows)
    batches: list[list[tuple[str, str]]] = []
    for _ in range(rounds):
        queues: dict[str, list[tuple[str, str]]] = {}
        for text, label in rows:
            same = [t for t in by_label[label] if t != text]
            if same:
                queues.setdefault(label, []).append((text, rng.choice(same)))
        for queue in queues.values():
            rng.shuffle(queue)
        while queues:
            # the labels with the most pairs left first, so the tail is not all one label
            fullest = sorted(queues, key=lambda lab: (-len(queues[lab]), rng.random()))
            batch = [queues[lab].pop() for lab in fullest[:batch_size]]
            queues = {lab: q for lab, q in queues.items() if q}
            if len(batch) >= 2:
                batches.append(batch)
    rng.shuffle(batches)
    return batches


def holdout_split(rows: Sequence[Row], per_label: int, seed: int) -> tuple[list[Row], list[Row]]:
    """(train, validation): `per_label` rows of each label held out (never all of a label's rows)."""
    rng = random.Random(seed)
    by_index: dict[str, list[int]] = {}
    for i, (_, label) in enumerate(rows):
        by_index.setdefault(label, []).append(i)
    held: set[int] = set()
    for label in sorted(by_index):
        idx = by_index[label]
        held.update(rng.sample(idx, min(per_label, len(idx) - 1)))
    return [r for i, r in enumerate(rows) if i not in held], [r for i, r in enumerate(rows) if i in held]
