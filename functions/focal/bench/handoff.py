"""`focal bench handoff`: requests for a person heard per language, and false hand-offs on near misses.

`focal bench handoff FILE` reads a labelled set (`lang<TAB>handoff|none<TAB>text` lines; tests/data/handoff_requests/
held_out.tsv is held out: measure it once, after the last choice) and reads each sentence the way the sensor does:
the request for a person by its meaning in the multilingual space in every language, English included
(focal.sensing.person_request). It prints, per language, requests caught and false hand-offs.

`--calibrate` chooses focal.sensing.person_request's threshold and margin on the exemplars alone, leave-one-out (each
exemplar scored against the others; `calibrate`). It never reads a labelled file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from focal.models.agent import SensorConfig
from focal.ports import Embedder
from focal.sensing.acts import act_index, detect_acts
from focal.sensing.person_exemplars import ASKING, NEAR_MISSES
from focal.sensing.person_request import PersonIndex, person_request

HANDOFF, NONE = "handoff", "none"
MAX_ROUNDS = 10  # threshold and margin chosen in turn until neither moves (two or three rounds in practice)


def read_cases(path: Path) -> list[tuple[str, str, str]]:
    """(lang, expected, text) per line; a malformed line is an error naming it."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or parts[1] not in (HANDOFF, NONE):
            raise ValueError(f"{path}:{n}: expected 'lang<TAB>handoff|none<TAB>text'")
        out.append((parts[0], parts[1], parts[2]))
    return out


def heard(text: str, lang: str, english: Embedder, multilingual: Embedder) -> bool:
    """Whether the sensor hears a request for a person, as it reads the turn: the acts of its space (MiniLM's
    exemplars for English), the request for a person by its meaning in the multilingual space in every language."""
    similarities = act_index(english).similarities(english.embed([text])[0]) if lang == "en" else None
    how = person_request(multilingual, multilingual.embed([text])[0])
    return "handoff" in detect_acts(text, similarities, SensorConfig().act_similarity,
                                    heard={"handoff": how} if how else None)


def measure(cases: list[tuple[str, str, str]], english: Embedder, multilingual: Embedder) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for lang, expected, text in cases:
        c = counts.setdefault(lang, {"requests": 0, "caught": 0, "near_misses": 0, "false": 0})
        got = heard(text, lang, english, multilingual)
        if expected == HANDOFF:
            c["requests"] += 1
            c["caught"] += got
        else:
            c["near_misses"] += 1
            c["false"] += got
    return counts


def _groups(table: dict[str, tuple[str, ...]], by_meaning: bool) -> np.ndarray:
    # the exemplars are written as near translations of each other, line for line: by meaning, the n-th sentence
    # of every language is one group (left out together, a kind of sentence the index has never seen); else each
    # sentence is its own (left out alone, its translations stay: a kind the index knows)
    if by_meaning:
        return np.array([n for lang in table for n in range(len(table[lang]))])
    return np.arange(sum(len(v) for v in table.values()))


def leave_one_out(index: PersonIndex, by_meaning: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per exemplar (asking ones first): the nearest asking and nearest near-miss cosines without its group, and
    whether it asks."""
    a, n = index.asking, index.near
    ga, gn = _groups(ASKING, by_meaning), _groups(NEAR_MISSES, by_meaning)
    aa, nn = a @ a.T, n @ n.T
    aa[ga[:, None] == ga[None, :]] = -1.0
    nn[gn[:, None] == gn[None, :]] = -1.0
    an = a @ n.T
    asking = np.concatenate([aa.max(axis=1), an.T.max(axis=1)])
    near = np.concatenate([an.max(axis=1), nn.max(axis=1)])
    asks = np.concatenate([np.ones(len(a), bool), np.zeros(len(n), bool)])
    return asking, near, asks


def _threshold(unseen: tuple[np.ndarray, np.ndarray, np.ndarray], margin: float) -> tuple[float, float, np.ndarray]:
    """Halfway between the highest near miss of an unseen sentence that the margin lets through (its kind-mates, if
    the index holds any, are still there: "who am I chatting with?" left out still has "tell me who I am chatting
    with here") and the next request above it; with that near miss and the requests above it."""
    asking, near, asks = unseen
    passing = ~asks & (asking - near >= margin)
    top = float(asking[passing].max()) if passing.any() else 0.0
    above = asking[asks & (asking > top)]
    return (top + float(above.min())) / 2, top, above


def calibrate(multilingual: Embedder) -> list[str]:
    """The threshold from near misses of unseen sentences (leave out a sentence with its translations), judged as the
    sensor judges a message — by the threshold and the margin: halfway between the highest of them the margin does not
    stop and the next request above it. The margin from near misses of known kinds (leave out the sentence alone): the
    middle of the margins that keep them all out and lose no request the threshold keeps. The two depend on each
    other: from no margin, each is chosen again from the other until neither moves."""
    index = PersonIndex(multilingual)
    unseen = leave_one_out(index, by_meaning=True)
    known, near, asks = leave_one_out(index, by_meaning=False)
    margin, lines = 0.0, [f"leave-one-out on {int(asks.sum())} asking and {int((~asks).sum())} near-miss exemplars"]
    for _ in range(MAX_ROUNDS):
        threshold, top, above = _threshold(unseen, margin)
        kept = asks & (known >= threshold)
        low, high = float((known - near)[~asks].max()), float((known - near)[kept].min())
        if low >= high:
            return [*lines, "no margin separates them: add exemplars"]
        chosen = (max(low, 0.0) + high) / 2  # never below 0: nearer to a near miss than to a request is no request
        if chosen == margin:
            break
        margin = chosen
    lines += [f"unseen sentences: highest near miss the margin lets through {top:.3f}, next request "
              f"{float(above.min()):.3f}; {len(above)}/{int(asks.sum())} requests above it",
              f"known kinds: near misses at most {low:+.3f} over a near miss, kept requests at least {high:+.3f}",
              f"chosen: threshold {threshold:.3f}, margin {margin:.3f}"]
    return lines


def cli(args: argparse.Namespace) -> int:
    from focal.adapters.use_embedder import shared_multilingual_embedder

    multilingual = shared_multilingual_embedder()
    if args.calibrate:
        print("\n".join(calibrate(multilingual)))
        return 0
    if not args.file:
        print("focal bench handoff: give a labelled file, or --calibrate")
        return 2
    from focal.adapters.onnx_embedder import shared_embedder

    counts = measure(read_cases(Path(args.file)), shared_embedder(), multilingual)
    print(f"{'lang':<6}{'caught':>12}{'false hand-offs':>18}")
    for lang, c in counts.items():
        print(f"{lang:<6}{c['caught']:>7}/{c['requests']:<4}{c['false']:>13}/{c['near_misses']}")
    return 0


def add_parser(bsub: argparse._SubParsersAction) -> None:
    s = bsub.add_parser("handoff", help="requests for a person caught and false hand-offs per language")
    s.add_argument("file", nargs="?", help="labelled TSV: lang<TAB>handoff|none<TAB>text")
    s.add_argument("--calibrate", action="store_true", help="choose the threshold and margin on the exemplars")
    s.set_defaults(func=cli)
