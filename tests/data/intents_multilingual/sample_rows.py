#!/usr/bin/env python3
"""Reproducible selection of the Banking77 / CLINC150 test rows that were translated.

Usage:  python3 sample_rows.py [SOURCE_DIR] > sample.jsonl
SOURCE_DIR defaults to /work/shared/bench/intents (banking77_test.csv, clinc150_test.jsonl).

Rules (seed 20261128, one random.Random shared in the order below):
  Banking77 test (3,080 rows, 77 labels x 40):
    1. for each label in sorted order: rng.sample(rows of that label in file order, 2)  -> 154
    2. extra labels: rng.sample(sorted labels, 6); for each (in sorted order) one more row,
       rng.choice(remaining rows of that label)                                        -> 6
  CLINC150 test (4,500 in-scope rows, 150 intents x 30, + 1,000 oos):
    3. rng.sample(sorted in-scope intents, 120); for each chosen intent in sorted order
       rng.choice(rows of that intent in file order)                                   -> 120
    4. rng.sample(oos rows in file order, 40)                                          -> 40
source_row is the 0-based index of the data row in the file (Banking77: CSV header not
counted; CLINC150: line number - 1). Output is sorted by (source, source_row).
"""
import csv
import json
import random
import sys
from collections import defaultdict

SEED = 20261128
B77_PER_LABEL, B77_EXTRA = 2, 6
CLINC_INTENTS, CLINC_OOS = 120, 40


def load(src):
    with open(f"{src}/banking77_test.csv", newline="", encoding="utf-8") as f:
        b77 = [(r["text"], r["label"]) for r in csv.DictReader(f)]
    with open(f"{src}/clinc150_test.jsonl", encoding="utf-8") as f:
        clinc = [(d["text"], d["label"]) for d in map(json.loads, f)]
    return b77, clinc


def select(b77, clinc, seed=SEED):
    rng = random.Random(seed)
    picked = []
    by_label = defaultdict(list)
    for i, (_, lab) in enumerate(b77):
        by_label[lab].append(i)
    labels = sorted(by_label)
    chosen = {lab: rng.sample(by_label[lab], B77_PER_LABEL) for lab in labels}
    for lab in sorted(rng.sample(labels, B77_EXTRA)):
        rest = [i for i in by_label[lab] if i not in chosen[lab]]
        chosen[lab].append(rng.choice(rest))
    picked += [("banking77", i) for lab in labels for i in chosen[lab]]

    by_intent = defaultdict(list)
    oos = []
    for i, (_, lab) in enumerate(clinc):
        (oos.append(i) if lab == "oos" else by_intent[lab].append(i))
    intents = sorted(by_intent)
    for lab in sorted(rng.sample(intents, CLINC_INTENTS)):
        picked.append(("clinc150", rng.choice(by_intent[lab])))
    picked += [("clinc150", i) for i in rng.sample(oos, CLINC_OOS)]
    return sorted(picked)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/bench/intents"
    b77, clinc = load(src)
    data = {"banking77": b77, "clinc150": clinc}
    for source, i in select(b77, clinc):
        text, label = data[source][i]
        print(json.dumps({"source": source, "source_row": i, "label": label, "en": text},
                         ensure_ascii=False))


if __name__ == "__main__":
    main()
