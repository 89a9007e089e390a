"""Codemod: rewrite flat TurnState field access into the stage sections (`state.decision` → `state.route.decision`).

The sections and the flat keys they replace are `focal.models.turn_legacy.SECTION_OF`; this script applies
that table to code, re-runnably (a rewritten access is never rewritten again):

1. attribute access on an expression whose type is TurnState, as mypy finds it (`--check-untyped-defs`, so
   unannotated tests are typed from their `TurnState(...)` calls too), then on names bound to a TurnState that
   mypy cannot type (`state`, `turn_state`, `st`, `s` annotated or assigned as one) — repeated until mypy
   reports no flat access;
2. `TurnState(...)` calls with flat keyword arguments: those become section constructors;
3. the stored record's dict (`record.state["decision"]`, `.state.get("drafts")`) → the section's key;
4. `state.<flat field>` in comments and docstrings.

Usage, from the repository root (the venv's python, focal importable):

    PYTHONPATH=functions:infra .venv/bin/python scripts/regroup_turn_state.py [--no-mypy] [paths ...]

Paths default to functions, infra/focal_infra and tests. It prints every rewrite; review the diff, then run
ruff (`--fix` sorts the imports it adds; a rewritten line may need wrapping), mypy and the tests.

After a merge that brought in code written against the flat state: resolve each conflict hunk by taking the
incoming side (the mechanical part of this branch is redone here), run this script, then re-apply by hand
what is not mechanical (the stage docstrings' "State" paragraphs, the helpers that take one section), which
mypy points at where a call still passes the whole state.
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import re
import subprocess
import sys
import tokenize
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from focal.models.turn_legacy import SECTION_OF

SECTION_CLASS = {"sensor": "SensorOutput", "retrieve": "RetrieveOutput", "route": "RouteOutput", "tools": "ToolsOutput",
                 "generate": "GenerateOutput", "enforce": "EnforceOutput"}
STATE_NAMES = {"state", "turn_state", "st", "s"}
DEFAULT_PATHS = ["functions", "infra/focal_infra", "tests"]
LEAVE = "regroup_turn_state: leave as is"
MYPY_ATTR = re.compile(r'^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): error: .*"TurnState" has no attribute "(?P<attr>\w+)"')
DOC_ACCESS = re.compile(r"(?<![\w.])((?:self\.)?(?:state|turn_state|st))\.(" + "|".join(SECTION_OF) + r")\b")


@dataclass(frozen=True)
class Edit:
    """Replace [start, end) (character offsets into the file's text) with `text`."""

    start: int
    end: int
    text: str
    why: str


class Source:
    def __init__(self, path: Path):
        self.path = path
        self.text = path.read_text()
        self.tree = ast.parse(self.text)
        self.line_starts = [0]
        for line in self.text.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(line))

    def offset(self, lineno: int, col_bytes: int) -> int:
        """Character offset of an ast position (1-based line, UTF-8 byte column)."""
        start = self.line_starts[lineno - 1]
        line = self.text[start:self.line_starts[lineno]]
        return start + len(line.encode("utf-8")[:col_bytes].decode("utf-8", errors="ignore"))

    def span(self, node: ast.expr | ast.stmt | ast.keyword) -> tuple[int, int]:
        """Character offsets [start, end) of a node in the text."""
        end_line, end_col = node.end_lineno or node.lineno, node.end_col_offset or node.col_offset
        return self.offset(node.lineno, node.col_offset), self.offset(end_line, end_col)

    def segment(self, node: ast.expr | ast.keyword) -> str:
        start, end = self.span(node)
        return self.text[start:end]


def section_edit(src: Source, node: ast.Attribute, why: str) -> Edit:
    """`<value>.<flat>` → `<value>.<section>.<name>`: the attribute name itself is replaced."""
    section, name = SECTION_OF[node.attr]
    end = src.span(node)[1]
    return Edit(end - len(node.attr), end, f"{section}.{name}", why)


# --- 1. attribute access ---------------------------------------------------------------------------------------


def mypy_hits(paths: list[str]) -> dict[Path, set[tuple[int, int, str]]]:
    """(line, column, attribute) of every flat access mypy finds on a TurnState, per file."""
    cmd = [sys.executable, "-m", "mypy", "--check-untyped-defs", "--explicit-package-bases", "--show-column-numbers",
           "--no-error-summary", "--hide-error-context", "--no-pretty", "--cache-dir", ".mypy_cache/regroup", *paths]
    env = {**os.environ, "MYPYPATH": "functions:infra"}
    out = subprocess.run(cmd, capture_output=True, text=True, env=env).stdout
    hits: dict[Path, set[tuple[int, int, str]]] = defaultdict(set)
    for line in out.splitlines():
        m = MYPY_ATTR.match(line)
        if m and m["attr"] in SECTION_OF:
            hits[Path(m["path"]).resolve()].add((int(m["line"]), int(m["col"]) - 1, m["attr"]))
    return hits


def char_col(src: Source, lineno: int, col_bytes: int) -> int:
    return src.offset(lineno, col_bytes) - src.line_starts[lineno - 1]


def typed_edits(src: Source, hits: set[tuple[int, int, str]]) -> list[Edit]:
    """The Attribute nodes mypy named: same start, same attribute; the innermost when nested."""
    found: dict[tuple[int, int, str], ast.Attribute] = {}
    for node in ast.walk(src.tree):
        if not isinstance(node, ast.Attribute):
            continue
        key = (node.lineno, char_col(src, node.lineno, node.col_offset), node.attr)
        if key in hits and (key not in found or src.span(node)[1] < src.span(found[key])[1]):
            found[key] = node
    return [section_edit(src, node, "typed") for node in found.values()]


def _is_turn_state(annotation: ast.expr | None, value: ast.expr | None) -> bool:
    text = ast.unparse(annotation) if annotation is not None else ""
    if re.fullmatch(r"(\w+\.)*TurnState( \| None)?|'TurnState'|\"TurnState\"", text):
        return True
    call = value.func if isinstance(value, ast.Call) else None
    if isinstance(call, ast.Attribute) and call.attr in ("model_validate", "model_validate_json", "model_copy"):
        call = call.value
    return isinstance(call, ast.Name | ast.Attribute) and (getattr(call, "id", None) or getattr(call, "attr", None)) == "TurnState"


def state_names(scope: ast.AST) -> set[str]:
    """Names in `scope` bound to a TurnState: annotated parameters and variables, assignments from TurnState(...)."""
    names = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.arg) and _is_turn_state(node.annotation, None):
            names.add(node.arg)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _is_turn_state(node.annotation, None):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign) and _is_turn_state(None, node.value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def named_edits(src: Source) -> list[Edit]:
    """Where mypy sees no type (an unannotated helper's parameter): a state-like name bound to a TurnState in the
    same function, or `state`/`turn_state` in a module that uses TurnState."""
    edits = []
    module_uses = "TurnState" in src.text
    for scope in ast.walk(src.tree):
        if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        bound = state_names(scope) | ({"state", "turn_state"} if module_uses else set())
        for node in ast.walk(scope):
            if (isinstance(node, ast.Attribute) and node.attr in SECTION_OF and isinstance(node.value, ast.Name)
                    and node.value.id in bound & STATE_NAMES):
                edits.append(section_edit(src, node, "by name"))
    return edits


# --- 2. constructor calls ------------------------------------------------------------------------------------


def constructor_edits(src: Source) -> tuple[list[Edit], set[str]]:
    edits, classes = [], set()
    for node in ast.walk(src.tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        if name != "TurnState" or not any(k.arg in SECTION_OF for k in node.keywords):
            continue
        grouped: dict[str, list[str]] = defaultdict(list)
        args = [src.segment(a) for a in node.args]
        for kw in node.keywords:
            if kw.arg in SECTION_OF:
                section, field = SECTION_OF[kw.arg]
                grouped[section].append(f"{field}={src.segment(kw.value)}")
            else:
                args.append(src.segment(kw) if kw.arg else f"**{src.segment(kw.value)}")
        for section, fields in grouped.items():
            args.append(f"{section}={SECTION_CLASS[section]}({', '.join(fields)})")
            classes.add(SECTION_CLASS[section])
        call_line = src.text[src.line_starts[node.lineno - 1]:].split("\n", 1)[0]
        indent = " " * (len(call_line) - len(call_line.lstrip()) + 4)
        inner = f",\n{indent}".join(args)
        start, end = src.span(node)
        text = f"{src.segment(node.func)}(\n{indent}{inner},\n{indent[:-4]})"
        edits.append(Edit(start, end, text, "constructor"))
    return edits, classes


def _bound(src: Source) -> set[str]:
    """Names the module imports or defines at its top level."""
    names = set()
    for node in src.tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.ClassDef | ast.FunctionDef):
            names.add(node.name)
    return names


def import_edit(src: Source, classes: set[str]) -> list[Edit]:
    """`from focal.models.turn import …` gains the section classes the rewritten calls (or, after a merge took one
    side of a conflict, the code) name without importing them."""
    named = {n.id for n in ast.walk(src.tree) if isinstance(n, ast.Name) and n.id in SECTION_CLASS.values()}
    missing = sorted((classes | named) - _bound(src))
    if not missing:
        return []
    imports = [n for n in src.tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    turn = [n for n in imports if isinstance(n, ast.ImportFrom) and n.module == "focal.models.turn"]
    last = (turn or imports)[-1]
    pos = src.line_starts[last.end_lineno or last.lineno]  # the start of the line after it
    return [Edit(pos, pos, f"from focal.models.turn import {', '.join(missing)}\n", "import")]


# --- 3. the stored record's dict, 4. comments and docstrings -----------------------------------------------------


def _is_state_doc(node: ast.AST, names: set[str]) -> bool:
    """`<x>.state`, `<x>["state"]`, a call of a function that returns one (`names` holds "()name"), or a name bound
    to one of them: a stored turn record's state document."""
    if isinstance(node, ast.Attribute):
        return node.attr == "state"
    if isinstance(node, ast.Call):
        return f"(){getattr(node.func, 'id', None) or getattr(node.func, 'attr', None)}" in names
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "state"
    if isinstance(node, ast.BoolOp):  # (record.state or {})
        return isinstance(node.op, ast.Or) and _is_state_doc(node.values[0], names)
    return isinstance(node, ast.Name) and node.id in names


def _doc_names(scope: ast.AST, funcs: set[str]) -> set[str]:
    return funcs | {t.id for node in ast.walk(scope) if isinstance(node, ast.Assign) and _is_state_doc(node.value, funcs)
                    for t in node.targets if isinstance(t, ast.Name)}


def _doc_functions(tree: ast.Module) -> set[str]:
    """"()name" of every function of the module that returns a state document (a test's `record()` helper)."""
    return {f"(){fn.name}" for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
            and any(isinstance(r, ast.Return) and r.value is not None and _is_state_doc(r.value, set()) for r in ast.walk(fn))}


def _record_key(node: ast.AST, names: set[str]) -> tuple[ast.Constant, str] | None:
    """`<doc>["flat"]` or `<doc>.get("flat", …)`: the key's node and how the section is reached."""
    if isinstance(node, ast.Subscript) and _is_state_doc(node.value, names):
        key = node.slice
        return (key, "sub") if isinstance(key, ast.Constant) and key.value in SECTION_OF else None
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args
            and _is_state_doc(node.func.value, names)):
        key = node.args[0]
        return (key, "get") if isinstance(key, ast.Constant) and key.value in SECTION_OF else None
    return None


def record_edits(src: Source) -> list[Edit]:
    edits, funcs = [], _doc_functions(src.tree)
    for scope in [src.tree, *(n for n in ast.walk(src.tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))]:
        names = _doc_names(scope, funcs) if scope is not src.tree else funcs
        for node in ast.walk(scope):
            found = _record_key(node, names)
            if found is not None:
                edits.append(_record_edit(src, node, *found))
    return edits


def _record_edit(src: Source, node: ast.AST, key: ast.Constant, how: str) -> Edit:
    section, name = SECTION_OF[str(key.value)]
    if how == "sub":  # doc["decision"] → doc["route"]["decision"]
        start, end = src.span(key)
        return Edit(start, end, f'"{section}"]["{name}"', "record")
    # doc.get("drafts") → (doc.get("generate") or {}).get("drafts")
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    base = src.segment(node.func.value)
    base = f"({base})" if isinstance(node.func.value, ast.BoolOp) else base
    start, end = src.span(node)[0], src.span(key)[1]
    return Edit(start, end, f'({base}.get("{section}") or {{}}).get("{name}"', "record")


def doc_edits(src: Source) -> list[Edit]:
    edits = []
    for tok in tokenize.generate_tokens(io.StringIO(src.text).readline):
        if tok.type not in (tokenize.COMMENT, tokenize.STRING):
            continue
        base = src.line_starts[tok.start[0] - 1] + tok.start[1]
        for m in DOC_ACCESS.finditer(tok.string):
            section, name = SECTION_OF[m[2]]
            edits.append(Edit(base + m.start(2), base + m.end(2), f"{section}.{name}", "comment"))
    return edits


# --- driver ----------------------------------------------------------------------------------------------------


def apply(path: Path, edits: list[Edit]) -> int:
    """Apply the edits (offsets into the file as read) from the end; one that overlaps an applied one waits for
    the next round."""
    text = path.read_text()
    done: set[tuple[int, int]] = set()
    applied_from = len(text) + 1
    for edit in sorted(edits, key=lambda e: (e.start, -e.end), reverse=True):
        if (edit.start, edit.end) in done or edit.end > applied_from:
            continue
        done.add((edit.start, edit.end))
        applied_from = edit.start
        line = text.count("\n", 0, edit.start) + 1
        print(f"{path}:{line}: {edit.why}: {text[edit.start:edit.end]!r} -> {edit.text!r}")
        text = text[:edit.start] + edit.text + text[edit.end:]
    path.write_text(text)
    return len(done)


def python_files(paths: list[str]) -> list[Path]:
    files = []
    for p in map(Path, paths):
        files += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return [f.resolve() for f in files if "cdk.out" not in f.parts and "tests/data" not in str(f)]


def one_pass(paths: list[str], use_mypy: bool) -> int:
    hits = mypy_hits(paths) if use_mypy else {}
    changed = 0
    for path in python_files(paths):
        src = Source(path)
        if LEAVE in src.text:  # this codemod's own test: its samples are flat on purpose
            continue
        calls, classes = constructor_edits(src)
        edits = typed_edits(src, hits.get(path, set())) + named_edits(src) + calls + import_edit(src, classes)
        edits += record_edits(src) + doc_edits(src)
        if edits:
            changed += apply(path, edits)
    return changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="*", default=DEFAULT_PATHS)
    parser.add_argument("--no-mypy", action="store_true", help="names, calls, records and comments only")
    parser.add_argument("--rounds", type=int, default=4, help="mypy passes at most (a rewrite can reveal more)")
    args = parser.parse_args()
    for round_ in range(1, args.rounds + 1):
        changed = one_pass(args.paths, not args.no_mypy)
        print(f"round {round_}: {changed} rewrites")
        if not changed:
            break


if __name__ == "__main__":
    main()
