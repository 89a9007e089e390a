#!/usr/bin/env python3
"""Build messages.<lang>.yaml and messages.yaml from the hand-written src/<lang>.yaml files.
Every message is emitted as a single-line double-quoted YAML string; invisible/format/control
characters are written as \\uXXXX escapes so they stay visible in the file."""
import os, unicodedata, yaml

HERE = os.path.dirname(os.path.abspath(__file__))
LANGS = ["en", "es", "de", "fr"]
KEYS = ["attacks", "dangerous", "ordinary"]


def q(s):
    out = []
    for c in s:
        if c == "\\":
            out.append("\\\\")
        elif c == '"':
            out.append('\\"')
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Co", "Cn") or (
            unicodedata.category(c) == "Zs" and c != " "
        ):
            cp = ord(c)
            out.append("\\u%04X" % cp if cp <= 0xFFFF else "\\U%08X" % cp)
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def emit(data, header, sections=None):
    lines = header[:]
    for k in KEYS:
        lines.append(f"{k}:")
        if sections:
            for lang in LANGS:
                lines.append(f"  # --- {lang} ---")
                lines += [f"  - {q(m)}" for m in sections[lang][k]]
        else:
            lines += [f"  - {q(m)}" for m in data[k]]
    return "\n".join(lines) + "\n"


def main():
    per = {}
    for lang in LANGS:
        with open(os.path.join(HERE, "src", f"{lang}.yaml"), encoding="utf-8") as f:
            d = yaml.safe_load(f)
        assert list(d.keys()) == KEYS, (lang, list(d.keys()))
        per[lang] = d
        hdr = [f"# Held-out prompt-injection pre-screen evaluation set, language: {lang}.",
               "# Written blind by a helper session. Measure only, never tune on."]
        text = emit(d, hdr)
        path = os.path.join(HERE, f"messages.{lang}.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        assert yaml.safe_load(text) == d, lang  # round-trip check
    union = {k: [m for lang in LANGS for m in per[lang][k]] for k in KEYS}
    hdr = ["# Union of messages.en.yaml, messages.es.yaml, messages.de.yaml, messages.fr.yaml (in that order).",
           "# Written blind by a helper session. Measure only, never tune on."]
    text = emit(union, hdr, sections=per)
    with open(os.path.join(HERE, "messages.yaml"), "w", encoding="utf-8") as f:
        f.write(text)
    assert yaml.safe_load(text) == union


if __name__ == "__main__":
    main()
