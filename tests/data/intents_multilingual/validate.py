#!/usr/bin/env python3
"""Check the translated intent samples against the source data and the sampling rule.

Usage:  python3 validate.py [SOURCE_DIR] [--counts]
Exits non-zero on any problem. --counts prints per-source/per-label counts (Markdown).
"""
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import sample_rows  # noqa: E402

LANGS = ("es", "de", "fr")
KEYS = {"source", "source_row", "label", "en", "text"}
EXPECTED = {"banking77": 160, "clinc150": 160}
EXPECTED_OOS = 40
MIN_PER_LANG = 300
# (source, source_row) pairs whose text may legitimately equal the English (language-neutral).
LANGUAGE_NEUTRAL = set()


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = args[0] if args else "/work/shared/bench/intents"
    b77, clinc = sample_rows.load(src)
    data = {"banking77": b77, "clinc150": clinc}
    labelset = {s: {lab for _, lab in rows} for s, rows in data.items()}
    selected = sample_rows.select(b77, clinc)
    errors = []
    keys_by_lang = {}
    for lang in LANGS:
        path = HERE / f"banking77_clinc150_test_sample.{lang}.jsonl"
        rows = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"{lang}:{n}: invalid JSON ({e})")
                continue
            if set(r) != KEYS:
                errors.append(f"{lang}:{n}: keys {sorted(r)}")
                continue
            rows.append(r)
            s, i = r["source"], r["source_row"]
            if s not in data or not isinstance(i, int) or not 0 <= i < len(data[s]):
                errors.append(f"{lang}:{n}: bad source/source_row {s}/{i}")
                continue
            en, lab = data[s][i]
            if r["label"] not in labelset[s]:
                errors.append(f"{lang}:{n}: label {r['label']!r} not in {s} label set")
            if r["label"] != lab:
                errors.append(f"{lang}:{n}: label {r['label']!r} != source label {lab!r}")
            if r["en"] != en:
                errors.append(f"{lang}:{n}: en differs from source row")
            t = r["text"]
            if not isinstance(t, str) or not t.strip() or t != t.strip():
                errors.append(f"{lang}:{n}: empty or untrimmed text")
            elif t.strip().lower() == en.strip().lower() and (s, i) not in LANGUAGE_NEUTRAL:
                errors.append(f"{lang}:{n}: text identical to English: {t!r}")
        keys = [(r["source"], r["source_row"]) for r in rows]
        if len(set(keys)) != len(keys):
            errors.append(f"{lang}: duplicate source rows")
        if sorted(keys) != selected:
            errors.append(f"{lang}: rows differ from sample_rows.select()")
        keys_by_lang[lang] = keys
        cnt = Counter(r["source"] for r in rows)
        oos = sum(r["label"] == "oos" for r in rows)
        if len(rows) < MIN_PER_LANG or dict(cnt) != EXPECTED or oos != EXPECTED_OOS:
            errors.append(f"{lang}: counts {dict(cnt)} total {len(rows)} oos {oos}")
        texts = Counter(r["text"] for r in rows)
        dup = [t for t, c in texts.items() if c > 1]
        print(f"{lang}: {len(rows)} rows, {dict(cnt)}, oos {oos}, "
              f"distinct labels b77 {len({r['label'] for r in rows if r['source'] == 'banking77'})} "
              f"clinc {len({r['label'] for r in rows if r['source'] == 'clinc150'})}"
              + (f", repeated texts {dup}" if dup else ""))
    if len({tuple(k) for k in keys_by_lang.values()}) != 1:
        errors.append("languages do not share the same source rows in the same order")
    if "--counts" in sys.argv:
        rows = [json.loads(l) for l in (HERE / "banking77_clinc150_test_sample.es.jsonl")
                .read_text(encoding="utf-8").splitlines()]
        for s in EXPECTED:
            c = Counter(r["label"] for r in rows if r["source"] == s)
            print(f"\n{s}: " + ", ".join(f"`{k}` {v}" for k, v in sorted(c.items())))
    for e in errors:
        print("ERROR", e)
    print("OK" if not errors else f"{len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
