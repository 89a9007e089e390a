"""Train the multilingual injection classifier (data/injection_classifier_multilingual.npz) and write its file.

    python -m focal.bench.injection_training_multilingual [--shared ../shared/bench] [--out PATH] [--cache DIR]

The same kind of model as focal.bench.injection_training (384 → 128 → 1 there), on the vector of the message's
injection view (figures masked) in the multilingual space the product already ships (use-multilingual-v3, 512
dimensions), where a Spanish, German or French message lands near its English meaning. It reads the views the
English classifier leaves alone: messages in another language (focal.sensing.injection_verdict). Steps:
1. the rows of focal.bench.injection_training (held-out texts removed) in every language, not only English: the
   multilingual attacks of yanismiraoui (es, de, fr, pt, it) are learnt from, and the example agents' own messages
   in Spanish, German and French (focal.bench.injection_corpora.translated_example_rows) and Focal's translations of
   Banking77 training messages (translated_banking_rows), and Focal's own short and alarming-looking ordinary messages
   in those languages (own_multilingual_rows) are ordinary rows beside Banking77 / CLINC150, so another language alone
   is not a sign of an attack; and rows synthesised per class of attack and of alarming-looking message from Focal's
   templates (injection_synthesised; --no-synthesised leaves them out, to measure what they bring);
2. the MLP of focal.bench.injection_training.train_mlp, each (source, label) group weighted the same way (weighting
   each language's groups apart was tried and not kept: no better on the validation rows, more false alarms on the
   four-language development set);
3. the threshold: the lowest score with at most FA_BUDGET false alarms on the validation customer messages and
   OTHER_LANGUAGE_BUDGET on the validation ordinary messages in other languages, never under THRESHOLD_FLOOR; then
   per language (of at least MIN_LANGUAGE_ROWS validation ordinary rows) the lowest score within
   OTHER_LANGUAGE_BUDGET on that language's rows, never under the shared one (the file carries both:
   focal.sensing.injection_classifier.threshold_for);
4. figures by source on the held-out sources (never trained or tuned on), printed.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from focal.bench.injection_corpora import (
    REPO,
    Row,
    dedupe,
    heldout_rows,
    own_multilingual_rows,
    translated_banking_rows,
    translated_example_rows,
    translated_text_sets,
)
from focal.bench.injection_example_texts import inputs_digest
from focal.bench.injection_synthesised import EMOTIONAL, UPSET, emotional_rows, synthesised_rows, upset_rows
from focal.bench.injection_training import SEED, _digest, group_weights, train_mlp, training_rows
from focal.sensing.injection_classifier import MULTILINGUAL_DATA_FILE, EmbeddingClassifier, to_bytes

HIDDEN = 128
MEMBERS = 1  # MLPs of HIDDEN // MEMBERS units each, their logits averaged (one file of HIDDEN units)
LANGUAGE_DIRECTIONS = 6  # chosen on the validation rows
OUT = REPO / "functions" / "focal" / "sensing" / "data" / MULTILINGUAL_DATA_FILE
FA_BUDGET = 0.01  # validation customer messages (Banking77 / CLINC150): half the 2 % target
OTHER_LANGUAGE_BUDGET = 0.02  # validation ordinary messages in other languages
CUSTOMER_SOURCES = ("banking77", "clinc150")
# validation ordinary rows in other languages
OTHER_LANGUAGE_SOURCES = ("focal multilingual", "banking77 translated", "focal ordinary es-de-fr")
MIN_LANGUAGE_ROWS = 10  # fewer validation rows in a language: its views get the shared threshold
# The shared threshold is never under this. The validation budgets alone gave 0.41: their other-language ordinary rows
# are few (about 290) and hold few of the short, terse or alarming-looking messages the blind sets showed raised.
# Chosen on the three development sets in es/de/fr (tests/data/prevalidation_blind, prevalidation_short_dev and
# prevalidation_hard_dev; never a blind v3-v5 set), one threshold for the three languages, by the rule the training
# uses: the lowest of 0.45, 0.5, 0.6, 0.7, 0.75, 0.8 with at most 2 % false alarms on their 516 ordinary messages
# (26, 23, 18, 15, 11, 6 false alarms; 117, 115, 111, 108, 105, 105 of 135 attacks caught).
THRESHOLD_FLOOR = 0.8


def other_language_rows(held: list[Row]) -> list[Row]:
    """The translated ordinary rows (the example agents' texts, Banking77 training messages), less any text a
    held-out source holds (`held`): a translation may say what a held-out message says, word for word."""
    keys = {" ".join(r.text.lower().split()) for r in held}
    return [r for r in dedupe(translated_example_rows() + translated_banking_rows() + own_multilingual_rows())
            if " ".join(r.text.lower().split()) not in keys]


def multilingual_rows(shared: Path, synthesised: bool = True, emotional: bool = False, upset: bool = False) -> list[Row]:
    """Train and val rows in every language, the translated ordinary rows included (held out removed); with
    `synthesised`, also the rows synthesised per class, and with `emotional` the emotional class's (stories around
    a request for internal material or to skip a check, and around ordinary requests; not in the shipped file, see
    INJECTION_CLASSIFIER.md), with `upset` the upset customers' (tests/data/injection_training/upset_classes.yaml)."""
    extra = ((synthesised_rows() if synthesised else []) + (emotional_rows() if emotional else [])
             + (upset_rows() if upset else []))
    return dedupe(training_rows(shared) + other_language_rows(heldout_rows(shared)) + extra)


def language_directions(embedder, count: int) -> np.ndarray:
    """An orthonormal basis (dimension × count) of the directions that tell languages apart in the embedding space:
    the principal directions of the differences between an example agent's texts and their translations (the same
    content in two languages: the topic cancels). Removed from every vector the classifier reads, so it cannot learn a language as a sign of
    an attack (its ordinary messages are mostly English, its attacks in six languages)."""
    if count <= 0:
        return np.zeros((embedder.dimension, 0), np.float32)
    from focal.sensing.injection_view import injection_view

    differences = []
    for _, own, translated in translated_text_sets():
        differences.append(embedder.embed([injection_view(t) for t in translated])
                           - embedder.embed([injection_view(t) for t in own]))
    u, _, _ = np.linalg.svd(np.concatenate(differences).T, full_matrices=False)
    return u[:, :count].astype(np.float32)


def without(x: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """`x` with its components along `basis` removed."""
    return x - (x @ basis) @ basis.T


def folded_in(model: EmbeddingClassifier, basis: np.ndarray) -> EmbeddingClassifier:
    """The same classifier reading raw vectors: the projection folded into its first layer ((x P) W = x (P W))."""
    first = without(model.weights[0].T, basis).T
    return EmbeddingClassifier((first, *model.weights[1:]), model.biases, model.threshold, model.embedding_model)


def threshold_for(scores: np.ndarray, budget: float) -> float:
    """The lowest threshold that flags at most `budget` of `scores` (a score equal to it is flagged)."""
    descending = np.sort(np.asarray(scores, dtype=np.float64))[::-1]
    allowed = int(np.floor(budget * len(descending)))
    return float(np.nextafter(descending[allowed], 1.0)) if allowed < len(descending) else 0.0


def choose_threshold(model: EmbeddingClassifier, budgets: Sequence[tuple[np.ndarray, float]]) -> float:
    """The lowest threshold within every (vectors, budget) pair's false-alarm budget, inside (0, 1)."""
    found = max(threshold_for(model.scores(x), budget) for x, budget in budgets)
    return float(min(max(found, 1e-3), 1 - 1e-6))


def english_threshold(model: EmbeddingClassifier, budgets: Sequence[tuple[np.ndarray, float]]) -> float:
    """The threshold for English views: within the first budget only (the validation customer messages, English)."""
    return choose_threshold(model, budgets[:1])


def shared_threshold(model: EmbeddingClassifier, budgets: Sequence[tuple[np.ndarray, float]]) -> float:
    """The threshold within every validation budget, never under THRESHOLD_FLOOR."""
    return max(THRESHOLD_FLOOR, choose_threshold(model, budgets))


def by_source(model: EmbeddingClassifier, rows: list[Row], x: np.ndarray) -> list[tuple[str, bool, int, int]]:
    """(source, attack, flagged, total) per source of `rows` (vectors `x`), at the model's threshold for each view's
    language."""
    flagged = model.scores(x) >= np.array([model.threshold_for(view_language(r)) for r in rows])
    out: dict[tuple[str, bool], list[int]] = {}
    for r, hit in zip(rows, flagged, strict=True):
        tally = out.setdefault((r.source, r.attack), [0, 0])
        tally[0] += int(hit)
        tally[1] += 1
    return [(source, attack, n, total) for (source, attack), (n, total) in sorted(out.items())]


def _vectors(views, rows: list[Row]) -> np.ndarray:
    from focal.sensing.injection_view import injection_view

    return np.asarray(views.of([injection_view(r.text) for r in rows]), dtype=np.float32)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m focal.bench.injection_training_multilingual")
    parser.add_argument("--shared", default=str(REPO.parent / "shared" / "bench"))
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--cache", default=".focal/bench-cache")
    parser.add_argument("--hidden", type=int, default=HIDDEN)
    parser.add_argument("--members", type=int, default=MEMBERS,
                        help="MLPs of hidden/members units each, their logits averaged (one file of the same size)")
    parser.add_argument("--directions", type=int, default=LANGUAGE_DIRECTIONS)
    parser.add_argument("--no-synthesised", dest="synthesised", action="store_false",
                        help="leave out the rows synthesised per class (the shipped file learnt from them)")
    parser.add_argument("--emotional", action="store_true",
                        help="learn from the emotional class's rows too (tests/data/injection_training/"
                             "emotional_classes.yaml; measured in session 11, not in the shipped file)")
    parser.add_argument("--upset", action="store_true",
                        help="learn from the upset customers' rows too (tests/data/injection_training/upset_classes.yaml)")
    parser.add_argument("--without", action="append", default=[],
                        help="a training source left out and measured, per language, with the held-out ones "
                             "(a by-source check)")
    return parser.parse_args(argv)


def view_language(row: Row) -> str:
    """The language of a row's view as the check tells it at run time ("" when too short to tell)."""
    from focal.sensing.injection_view import injection_view
    from focal.sensing.language import detect

    return detect(injection_view(row.text))[0] or ""


def language_thresholds(model: EmbeddingClassifier, views, val: list[Row]) -> tuple[tuple[str, float], ...]:
    """Per language with ordinary validation rows in it: the lowest threshold within OTHER_LANGUAGE_BUDGET false
    alarms on them, never under the shared threshold."""
    ordinary: dict[str, list[Row]] = {}
    for r in val:
        if not r.attack and r.source in OTHER_LANGUAGE_SOURCES and (lang := view_language(r)) not in ("", "en"):
            ordinary.setdefault(lang, []).append(r)
    return tuple(sorted(
        (lang, max(model.threshold, choose_threshold(model, [(_vectors(views, part), OTHER_LANGUAGE_BUDGET)])))
        for lang, part in ordinary.items() if len(part) >= MIN_LANGUAGE_ROWS
    ))


def averaged(members: list[EmbeddingClassifier]) -> EmbeddingClassifier:
    """One MLP whose logit is the mean of the members' (their hidden units side by side, the output layer divided
    by their number): the same file format and size as one MLP of all their hidden units."""
    k = len(members)
    first = np.concatenate([m.weights[0] for m in members], axis=1)
    bias = np.concatenate([m.biases[0] for m in members])
    out = np.concatenate([m.weights[1] for m in members], axis=0) / k
    out_bias = sum(m.biases[1] for m in members) / k
    return EmbeddingClassifier((first, out), (bias, np.asarray(out_bias, np.float32)), 0.5, members[0].embedding_model)


def fit(views, rows: list[Row], directions: int, hidden: int, members: int = MEMBERS) -> EmbeddingClassifier:
    """The classifier learnt from the `train` rows, its thresholds chosen on the `val` rows."""
    train = [r for r in rows if r.split == "train"]
    y = np.array([r.attack for r in train], np.float32)
    basis = language_directions(views.embedder, directions)
    x, weights = without(_vectors(views, train), basis), group_weights(train)
    fitted = averaged([train_mlp(x, y, weights, hidden=hidden // members, seed=SEED + i) for i in range(members)])
    model = folded_in(EmbeddingClassifier(fitted.weights, fitted.biases, 0.5, views.embedder.model_name), basis)
    val = [r for r in rows if r.split == "val"]
    customers = [r for r in val if not r.attack and r.source in CUSTOMER_SOURCES]
    languages = [r for r in val if r.source in OTHER_LANGUAGE_SOURCES]
    budgets = [(_vectors(views, customers), FA_BUDGET), (_vectors(views, languages), OTHER_LANGUAGE_BUDGET)]
    threshold = shared_threshold(model, budgets)
    shared = EmbeddingClassifier(model.weights, model.biases, threshold, model.embedding_model)
    # The floor was chosen on Spanish, German and French views; as the second opinion on an English view
    # (focal.sensing.injection_verdict.english_reason) the classifier keeps the threshold of the English budget
    # alone, the validation customer messages': the rows in other languages have thresholds of their own, and with
    # them in its budget a rebuild let an English emotional story asking for internal rules pass.
    english = ("en", english_threshold(model, budgets))
    return EmbeddingClassifier(model.weights, model.biases, threshold, model.embedding_model,
                               language_thresholds=tuple(sorted((*language_thresholds(shared, views, val), english))))


def _per_language(rows: list[Row]) -> list[Row]:
    from focal.sensing.language import detect

    return [Row(r.text, r.attack, f"{r.source} {detect(r.text)[0] or '(too short to tell)'}", r.split) for r in rows]


def recorded(rows: list[Row], args: argparse.Namespace) -> dict:
    """What the file's header records of its build: the settings, and digests of the rows and of the training
    material the repository holds (focal.bench.injection_example_texts.inputs_digest)."""
    return {"seed": SEED, "hidden": args.hidden, "members": args.members, "language_directions": args.directions,
            "rows_digest": _digest(rows), "inputs_digest": inputs_digest(),
            "train_rows": sum(r.split == "train" for r in rows), "left_out": args.without,
            **({"emotional_digest": hashlib.sha256(EMOTIONAL.read_bytes()).hexdigest()[:16]} if args.emotional else {}),
            **({"upset_digest": hashlib.sha256(UPSET.read_bytes()).hexdigest()[:16]} if args.upset else {})}


def main(argv: list[str] | None = None) -> int:
    from focal.adapters.use_embedder import shared_multilingual_embedder
    from focal.bench.prevalidation_scoring import ViewVectors
    from focal.sensing.injection_verdict import has_words
    from focal.sensing.injection_view import injection_view

    args = _arguments(argv)
    shared = Path(args.shared)
    every = [r for r in multilingual_rows(shared, args.synthesised, args.emotional, args.upset) if has_words(injection_view(r.text))]
    rows = [r for r in every if r.source not in args.without]
    views = ViewVectors(shared_multilingual_embedder(), Path(args.cache) if args.cache else None, one_at_a_time=True)
    final = fit(views, rows, args.directions, args.hidden, args.members)
    meta = recorded(rows, args)
    Path(args.out).write_bytes(to_bytes(final, meta))
    print(f"trained on {meta['train_rows']} rows in {final.embedding_model}; threshold {final.threshold:.4f}; per language "
          + ", ".join(f"{lang} {t:.4f}" for lang, t in final.language_thresholds))
    held = [r for r in dedupe(heldout_rows(shared)) if has_words(injection_view(r.text))]
    held += _per_language([r for r in every if r.source in args.without])
    for title, part in (("validation", [r for r in rows if r.split == "val"]), ("held out", held)):
        print(f"{title}, classifier alone, by source:")
        for source, attack, n, total in by_source(final, part, _vectors(views, part)):
            print(f"  {source:<36} {'caught' if attack else 'false alarms'} {n}/{total} ({100 * n / total:.1f} %)")
    print(f"wrote {args.out} ({Path(args.out).stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
