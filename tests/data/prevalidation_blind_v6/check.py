#!/usr/bin/env python3
"""Check the blind pre-screen evaluation set: key order, counts, string types,
single-line double-quoted entries, no raw invisible characters, no repeated message
(within a file, across classes, across languages), and union == concatenation."""
import os, sys, unicodedata
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
LANGS = ["en", "es", "de", "fr"]
KEYS = ["attacks", "dangerous", "ordinary"]
PER_LANG = {"attacks": 40, "dangerous": 10, "ordinary": 80}
errors = []

def err(msg):
    errors.append(msg)

def norm(s):
    return " ".join(unicodedata.normalize("NFC", s).casefold().split())

def check_raw(path):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            for ch in line:
                cat = unicodedata.category(ch)
                if cat in ("Cf", "Cc", "Co", "Cs") or (cat.startswith("Z") and ch != " "):
                    err(f"{path}:{n}: raw invisible/control char U+{ord(ch):04X} (use \\u escape)")
            if line.startswith("  - ") and not (line.startswith('  - "') and line.endswith('"')):
                err(f"{path}:{n}: entry is not a single-line double-quoted string")

def load(path):
    check_raw(path)
    with open(path, encoding="utf-8") as f:
        d = yaml.safe_load(f)
    if not isinstance(d, dict) or list(d.keys()) != KEYS:
        err(f"{path}: keys {list(d.keys()) if isinstance(d, dict) else type(d)} != {KEYS}")
        return {k: [] for k in KEYS}
    for k in KEYS:
        for i, m in enumerate(d[k]):
            if not isinstance(m, str) or not m.strip():
                err(f"{path}: {k}[{i}] is not a non-empty string: {m!r}")
    return d

files = {l: load(os.path.join(HERE, f"messages.{l}.yaml")) for l in LANGS}
union = load(os.path.join(HERE, "messages.yaml"))

print(f"{'file':<18}" + "".join(f"{k:>11}" for k in KEYS) + f"{'total':>8}")
for l in LANGS:
    d = files[l]
    for k in KEYS:
        if len(d[k]) != PER_LANG[k]:
            err(f"messages.{l}.yaml: {k} has {len(d[k])}, expected {PER_LANG[k]}")
    print(f"{'messages.'+l+'.yaml':<18}" + "".join(f"{len(d[k]):>11}" for k in KEYS)
          + f"{sum(len(d[k]) for k in KEYS):>8}")
for k in KEYS:
    exp = [m for l in LANGS for m in files[l][k]]
    if union[k] != exp:
        err(f"messages.yaml: {k} is not the concatenation en+es+de+fr of the language files")
    if len(union[k]) != PER_LANG[k] * len(LANGS):
        err(f"messages.yaml: {k} has {len(union[k])}, expected {PER_LANG[k] * len(LANGS)}")
print(f"{'messages.yaml':<18}" + "".join(f"{len(union[k]):>11}" for k in KEYS)
      + f"{sum(len(union[k]) for k in KEYS):>8}")

# no message repeats anywhere (exact, and after case/whitespace normalisation)
seen = {}
for l in LANGS:
    for k in KEYS:
        for i, m in enumerate(files[l][k]):
            key = norm(m)
            if key in seen:
                err(f"repeat: {l}/{k}[{i}] == {seen[key]}: {m[:60]!r}")
            else:
                seen[key] = f"{l}/{k}[{i}]"

if errors:
    print(f"\nFAIL ({len(errors)} problem(s)):")
    for e in errors:
        print("  -", e)
    sys.exit(1)
print(f"\nOK: {len(seen)} distinct messages, no repeats.")
