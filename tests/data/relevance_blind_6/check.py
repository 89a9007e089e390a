#!/usr/bin/env python3
"""Check relevance_blind_6/drafts.yaml loads and its counts hold (160 cases; per language 40 = 8 per agent,
30 on_topic / 8 off_topic / 2 wrong_answer; 6 on_topic per agent and language; unique ids; 0-2 history)."""
import collections, os, re, sys
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
LANGS = ["en", "es", "de", "fr"]
AGENTS = ["pizza", "newcomer_gym", "newcomer_hotel", "newcomer_energy", "newcomer_insurance"]
KEYS = ["id", "agent", "language", "history", "customer", "draft", "label", "kind"]


def main():
    with open(os.path.join(HERE, "drafts.yaml"), encoding="utf-8") as fh:
        cases = yaml.safe_load(fh)["cases"]
    err = []
    if len(cases) != 160:
        err.append(f"{len(cases)} cases, expected 160")
    ids = [c["id"] for c in cases]
    if len(set(ids)) != len(ids):
        err.append("duplicate ids")
    for c in cases:
        if list(c) != KEYS:
            err.append(f"{c.get('id')}: keys {list(c)}")
        m = re.fullmatch(r"blind6-(en|es|de|fr)-(\d\d)", c["id"])
        if not m or m.group(1) != c["language"]:
            err.append(f"{c['id']}: bad id or language")
        if c["agent"] not in AGENTS:
            err.append(f"{c['id']}: agent {c['agent']}")
        if c["label"] not in ("on_topic", "off_topic", "wrong_answer"):
            err.append(f"{c['id']}: label {c['label']}")
        if not (isinstance(c["history"], list) and len(c["history"]) <= 2):
            err.append(f"{c['id']}: history must be a list of 0-2 messages")
        if not all(isinstance(c[k], str) and c[k].strip() for k in ("customer", "draft", "kind")):
            err.append(f"{c['id']}: empty customer/draft/kind")
    for lang in LANGS:
        L = [c for c in cases if c["language"] == lang]
        labels = collections.Counter(c["label"] for c in L)
        if len(L) != 40 or labels != {"on_topic": 30, "off_topic": 8, "wrong_answer": 2}:
            err.append(f"{lang}: {len(L)} cases, labels {dict(labels)}")
        for a in AGENTS:
            A = [c for c in L if c["agent"] == a]
            on = sum(c["label"] == "on_topic" for c in A)
            if len(A) != 8 or on != 6:
                err.append(f"{lang}/{a}: {len(A)} cases, {on} on_topic")
        print(f"{lang}: {len(L)} cases {dict(sorted(labels.items()))}")
    if err:
        print("\n".join(err))
        sys.exit(1)
    print("OK 160")


if __name__ == "__main__":
    main()
