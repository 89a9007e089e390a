#!/usr/bin/env python3
"""Load each messages file, check key order, per-class counts, single-line strings, and that no message repeats."""
import os, sys, yaml

HERE = os.path.dirname(os.path.abspath(__file__))
LANGS = ["en", "es", "de", "fr"]
KEYS = ["attacks", "dangerous", "ordinary"]
EXPECT = {"attacks": 40, "dangerous": 10, "ordinary": 80}


def load(name):
    path = os.path.join(HERE, name)
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    data = yaml.safe_load(raw)
    errs = []
    if not isinstance(data, dict) or list(data.keys()) != KEYS:
        errs.append(f"{name}: keys {list(data.keys()) if isinstance(data, dict) else type(data)} != {KEYS}")
        return data, errs
    for k in KEYS:
        for m in data[k]:
            if not isinstance(m, str) or not m.strip():
                errs.append(f"{name}:{k}: empty or non-string entry {m!r}")
    # every list item is a single-line double-quoted string
    for i, line in enumerate(raw.splitlines(), 1):
        s = line.strip()
        if s.startswith("- ") and not (s.startswith('- "') and s.endswith('"')):
            errs.append(f"{name}:{i}: list item is not a single-line double-quoted string")
    return data, errs


def main():
    errs = []
    total = {k: 0 for k in KEYS}
    seen_all = {}
    per = {}
    for lang in LANGS:
        name = f"messages.{lang}.yaml"
        d, e = load(name)
        errs += e
        if e and not isinstance(d, dict):
            continue
        per[lang] = d
        for k in KEYS:
            n = len(d[k])
            total[k] += n
            if n != EXPECT[k]:
                errs.append(f"{name}: {k} has {n}, expected {EXPECT[k]}")
            for m in d[k]:
                key = " ".join(m.casefold().split())  # case/whitespace-insensitive
                if key in seen_all:
                    errs.append(f"repeat: {m!r} in {name}:{k} and {seen_all[key]}")
                else:
                    seen_all[key] = f"{name}:{k}"
        print(f"{name}: " + ", ".join(f"{k}={len(d[k])}" for k in KEYS))
    u, e = load("messages.yaml")
    errs += e
    if isinstance(u, dict) and list(u.keys()) == KEYS:
        for k in KEYS:
            if len(u[k]) != 4 * EXPECT[k]:
                errs.append(f"messages.yaml: {k} has {len(u[k])}, expected {4 * EXPECT[k]}")
            if len({" ".join(m.casefold().split()) for m in u[k]}) != len(u[k]):
                errs.append(f"messages.yaml: {k} has repeated messages")
            expect_union = [m for lang in LANGS if lang in per for m in per[lang][k]]
            if u[k] != expect_union:
                errs.append(f"messages.yaml: {k} is not the union of the four language files")
        print("messages.yaml: " + ", ".join(f"{k}={len(u[k])}" for k in KEYS))
    if errs:
        print("FAIL")
        for e in errs:
            print("  " + e)
        sys.exit(1)
    print("OK: counts match and no message repeats")


if __name__ == "__main__":
    main()
