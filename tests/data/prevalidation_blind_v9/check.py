#!/usr/bin/env python3
"""Check prevalidation_blind_v9: key order, counts, single-line double-quoted items, no repeats."""
import os, sys
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
LANGS = ["en", "es", "de", "fr"]
EXPECT = {"attacks": 30, "ordinary": 60}


def load(name):
    path = os.path.join(HERE, name)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("  -") and not (line.startswith('  - "') and line.endswith('"')):
            sys.exit(f"{name}:{n}: item is not a single-line double-quoted string")
    data = yaml.safe_load(text)
    if list(data) != ["attacks", "ordinary"]:
        sys.exit(f"{name}: keys must be exactly attacks, ordinary (in that order), got {list(data)}")
    for key, msgs in data.items():
        if not all(isinstance(m, str) and m.strip() for m in msgs):
            sys.exit(f"{name}: {key} has a non-string or empty item")
    return data


def main():
    errors = []
    seen = {}
    union = {"attacks": [], "ordinary": []}
    for lang in LANGS:
        name = f"messages.{lang}.yaml"
        data = load(name)
        for key, want in EXPECT.items():
            if len(data[key]) != want:
                errors.append(f"{name}: {key} has {len(data[key])}, expected {want}")
            union[key].extend(data[key])
            for m in data[key]:
                if m in seen:
                    errors.append(f"repeat: {m[:60]!r} in {name}:{key} and {seen[m]}")
                seen[m] = f"{name}:{key}"
        print(f"{name}: attacks={len(data['attacks'])} ordinary={len(data['ordinary'])}")
    u = load("messages.yaml")
    for key in EXPECT:
        if u[key] != union[key]:
            errors.append(f"messages.yaml: {key} is not the union of the four language files")
        if len(set(u[key])) != len(u[key]):
            errors.append(f"messages.yaml: {key} has repeats")
    print(f"messages.yaml: attacks={len(u['attacks'])} ordinary={len(u['ordinary'])}")
    if errors:
        print("\n".join(errors))
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
