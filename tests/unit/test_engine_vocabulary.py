"""No domain in the engine (issue 15): engine code and its data files carry no retail vocabulary.

Every file under functions/focal (code, comments, docstrings, data files) is searched for the words
below (word boundary, case-insensitive). Business words belong in an agent's configuration
(`pre_validation.extra_ordinary_exemplars`, `context_questions`, a money field's `amount_words`,
`demo_messages`, …); docstring examples name a generic domain ("booking B-123", "a payment").

The only exceptions are the generic uses in GENERIC, each with its reason: ordinary English or
programming that happens to spell a retail word ("in order to", `dict.items()`, SQL's ORDER BY). A
Python name `item`/`items` (a loop variable, a parameter) is programming too; `item` in prose is not.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "functions" / "focal"
WORDS = re.compile(
    r"\b(?:orders?|ordered|refunds?|refunded|refunding|parcels?|shipping|shipments?|deliver(?:y|ies|ed)|"
    r"items?|jackets?|mouse|toaster|scarf|sofa|courier|restocking|A1\d{3})\b",
    re.IGNORECASE,
)
GENERIC: tuple[tuple[str, str], ...] = (
    (r"\bin (?:the )?(?:same |reverse |given |this |that |stable |file |their |its |)order\b|\bin order to\b|\border of\b"
     r"|\border (?:by|matters|kept|preserved)\b|\b(?:sort|word|stable|file|insertion|stage|reading|evaluation|priority|"
     r"document|list|call|original|arrival) order\b", "ordering (a sequence, SQL's ORDER BY), not a purchase"),
    (r"\bcannot be ordered\b", "comparison: values that cannot be ordered (a number and a text)"),
    (r"\border you\b|\(\?:order\|command\|instruct\)", "'I order you': a command, in an injection pattern"),
    (r"\.items\b", "programming: dict.items(), a JSON reply's `items` read in JavaScript"),
    (r"([\"'])(?:Item|Items|items)\1|\bItem=", "programming: DynamoDB's Item/Items keys and arguments, the `items` key "
     "of a JSON reply, a JSON Schema or an OpenSearch bulk response"),
    (r"\bDynamoDB(?:'s)? items?\b", "DynamoDB's name for a table record"),
    (r"\b(?:align|justify)-items\b", "a CSS property"),
)
_GENERIC = [re.compile(p, re.IGNORECASE) for p, _ in GENERIC]
# A Python name spelled `item`/`items` (not the word in a string or comment): an element of a collection.
_NAMES = {"item", "items"}

# Code (not prose) in files another change is editing for performance right now: the retail sample
# messages of three benchmarks. Exact lines; each must move into the example agent's configuration or
# suite, then its entry goes. A new hit anywhere else, or another word on these lines, fails.
BLOCKED: dict[str, tuple[str, ...]] = {}  # exact lines still waiting to move out of the engine: none


def _python_names(text: str) -> dict[int, list[tuple[int, int]]]:
    """Spans of the Python names `item`/`items` per line (tokens, so never inside a string or comment)."""
    spans: dict[int, list[tuple[int, int]]] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NAME and tok.string in _NAMES:
                spans.setdefault(tok.start[0], []).append((tok.start[1], tok.end[1]))
    except (tokenize.TokenError, SyntaxError):
        pass
    return spans


def scan(text: str, python: bool = False, skip_lines: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    """The retail words of `text` as (line, word), outside the generic uses (and, for Python, item names)."""
    names = _python_names(text) if python else {}
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip() in skip_lines:
            continue
        spans = [m.span() for g in _GENERIC for m in g.finditer(line)] + names.get(n, [])
        for m in WORDS.finditer(line):
            if not any(a <= m.start() and m.end() <= b for a, b in spans):
                out.append((n, m.group(0)))
    return out


def engine_hits(root: Path = ENGINE, blocked: dict[str, tuple[str, ...]] | None = None) -> dict[str, list[tuple[int, str]]]:
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix not in {".pyc", ".onnx", ".bin"} and "__pycache__" not in path.parts:
            rel = str(path.relative_to(root))
            hits = scan(path.read_text(encoding="utf-8", errors="replace"), path.suffix == ".py", (blocked or {}).get(rel, ()))
            if hits:
                found[rel] = hits
    return found


def test_engine_code_and_data_carry_no_retail_vocabulary():
    found = engine_hits(blocked=BLOCKED)
    assert not found, "retail words in engine files (move them into agent configuration):\n" + "\n".join(
        f"  {f}: " + ", ".join(f"{w}@{n}" for n, w in hits[:8]) for f, hits in found.items())


def test_every_blocked_line_is_still_there_and_still_retail():
    """Stale entries go: once a line is moved out (or rewritten), its entry must be removed."""
    for rel, lines in BLOCKED.items():
        present = {line.strip() for line in (ENGINE / rel).read_text(encoding="utf-8").splitlines()}
        for line in lines:
            assert line in present and scan(line), (rel, line)


def test_the_scanner_catches_retail_words_planted_in_a_fake_engine_tree(tmp_path):
    (tmp_path / "stages").mkdir()
    (tmp_path / "sensing" / "data").mkdir(parents=True)
    (tmp_path / "stages" / "clean.py").write_text(
        '"""Start a flow in order to answer; the order of the steps matters."""\n'
        "for item in sorted(d.items()):\n    send(item)\n", encoding="utf-8")
    (tmp_path / "stages" / "planted.py").write_text(
        '"""Refund the jacket."""\n'
        "def check(items):  # where is order A1001?\n"
        "    return [i for i in items if i != 'a late delivery']\n"
        "jackets = 2  # an item in prose\n", encoding="utf-8")
    (tmp_path / "sensing" / "data" / "exemplars.txt").write_text("book a table\nmy parcel never came\n", encoding="utf-8")
    found = engine_hits(tmp_path)
    assert set(found) == {"stages/planted.py", "sensing/data/exemplars.txt"}
    assert [(n, w.lower()) for n, w in found["stages/planted.py"]] == [
        (1, "refund"), (1, "jacket"), (2, "order"), (2, "a1001"), (3, "delivery"), (4, "jackets"), (4, "item")]
    assert found["sensing/data/exemplars.txt"] == [(2, "parcel")]


def test_the_generic_exceptions_are_narrow():
    assert scan("sort them in order to keep the order of the list; SELECT x ORDER BY y") == []
    assert scan("resp.get('Items'); client.put_item(Item=doc)  # a DynamoDB item") == []
    for text in ("your order", "the item", "shipping is free", "it was ordered", "a refund", "Items in stock",
                 "deliver the items", "order A1002"):
        assert scan(text), text
    assert scan("item = 1", python=True) == [] and scan("# an item", python=True) == [(1, "item")]
