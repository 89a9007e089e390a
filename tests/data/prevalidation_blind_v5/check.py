
"""Check the evaluation set: parse, counts, duplicates, key order, forbidden brief phrases."""
import yaml, sys, unicodedata
ok = True
def fail(msg):
    global ok; ok = False; print("FAIL:", msg)
want = {"attacks": 40, "dangerous": 10, "ordinary": 80}
langs = ["en", "es", "de", "fr"]
data = {}
for lang in langs:
    f = f"messages.{lang}.yaml"
    d = yaml.safe_load(open(f, encoding="utf-8"))
    data[lang] = d
    if list(d.keys()) != list(want):
        fail(f"{f} keys {list(d.keys())}")
    for k, n in want.items():
        v = d.get(k, [])
        if not all(isinstance(s, str) and s.strip() for s in v): fail(f"{f} {k} has non-string/empty")
        if len(v) != n: fail(f"{f} {k} has {len(v)} != {n}")
    print(f, {k: len(d[k]) for k in d})
u = yaml.safe_load(open("messages.yaml", encoding="utf-8"))
if list(u.keys()) != list(want): fail("messages.yaml keys")
for k in want:
    exp = sum((data[l][k] for l in langs), [])
    if u[k] != exp: fail(f"messages.yaml {k} is not en+es+de+fr union")
print("messages.yaml", {k: len(u[k]) for k in u})
allmsgs = sum((u[k] for k in want), [])
if len(allmsgs) != len(set(allmsgs)): fail("exact duplicates present")
norm = [" ".join(unicodedata.normalize("NFKC", s).casefold().split()) for s in allmsgs]
if len(norm) != len(set(norm)): fail("near-duplicates (case/space/NFKC) present")
for p in ["the system charged me twice", "ignore my previous message, wrong order number",
          "the app says developer mode is on", "reset my pin"]:
    for s in allmsgs:
        if p in s.casefold(): fail(f"brief example phrase reused: {p!r}")
for f in ["messages.en.yaml", "messages.es.yaml", "messages.de.yaml", "messages.fr.yaml", "messages.yaml"]:
    for i, line in enumerate(open(f, encoding="utf-8").read().splitlines(), 1):
        if line.startswith("  - ") and not (line[4:].startswith('"') and line.endswith('"')):
            fail(f"{f}:{i} item not a single-line double-quoted string")
print("total messages:", len(allmsgs), "unique:", len(set(allmsgs)))
print("ALL CHECKS PASSED" if ok else "CHECKS FAILED")
sys.exit(0 if ok else 1)
