"""`focal bench floor`: where `sensor.no_intent_floor` comes from — how many messages fall below a floor.

Outside a flow, a message whose best intent score is below the floor gets no sensor model call
(focal.sensing.fast_path). The cost of a floor is the in-scope messages below it (a model might have
placed them); its gain is the out-of-scope messages below it (a call saved). Measured on the CLINC150
*validation* split with k training examples per intent (agents have a handful, not a hundred), through
the sensor's own `IntentIndex`; the test split is not read.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from focal.bench.intents import (
    OOS,
    CachedEmbedder,
    bench_agent,
    cap_rows,
    default_data_dir,
    model_digest,
    read_clinc,
    score_queries,
)
from focal.models.agent import SensorConfig
from focal.sensing.intents import IntentIndex

FLOORS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4)


def floor_table(data: Path, cache: str | None, shots: list[int]) -> str:
    from focal.adapters.onnx_embedder import OnnxEmbedder

    embedder = CachedEmbedder(OnnxEmbedder(), model_digest(), Path(cache) if cache else None)
    train_t, train_l = read_clinc(data / "clinc150_train.jsonl")
    in_scope = [(t, l) for t, l in zip(train_t, train_l, strict=True) if l != OOS]
    val_t, val_l = read_clinc(data / "clinc150_val.jsonl")
    gold = np.array(val_l)
    shipped = SensorConfig().no_intent_floor
    lines = [f"focal bench floor: CLINC150 validation split ({int(np.sum(gold != OOS))} in scope, "
             f"{int(np.sum(gold == OOS))} out of scope); shipped sensor.no_intent_floor {shipped:.2f}",
             f"{'examples/intent':>16}{'floor':>7}{'in scope below':>16}{'out of scope below':>20}"]
    for k in shots:
        texts, labels = cap_rows([t for t, _ in in_scope], [l for _, l in in_scope], None, k)
        index = IntentIndex(bench_agent(sorted(set(labels)), texts, labels, None), embedder)
        top = score_queries(index, embedder.embed(val_t)).max(axis=1)
        for f in sorted({*FLOORS, shipped}):
            lost = float(np.mean(top[gold != OOS] < f)) * 100
            saved = float(np.mean(top[gold == OOS] < f)) * 100
            mark = "  ← shipped" if f == shipped else ""
            lines.append(f"{k:>16}{f:>7.2f}{lost:>15.2f}%{saved:>19.1f}%{mark}")
    return "\n".join(lines)


def add_parser(bsub) -> None:  # noqa: ANN001 - argparse sub-parsers
    s = bsub.add_parser("floor", help="in-scope / out-of-scope messages below the sensor's no-intent floor (CLINC150 val)")
    s.add_argument("--data", help="folder with the benchmark files (default: ../shared/bench/intents)")
    s.add_argument("--cache", default=".focal/bench-cache", help="embedding cache folder")
    s.add_argument("--shots", default="5,20", help="training examples per intent, comma-separated")
    s.set_defaults(func=lambda a: print(floor_table(Path(a.data) if a.data else default_data_dir(), a.cache,
                                                    [int(x) for x in a.shots.split(",") if x.strip()])) or 0)
