"""Comparisons that run without an error but never mean what they say, found without running them.

Values are brought to their field's type when read (sensing.extraction.coerce): a boolean holds true
or false, a money, percentage, integer or number field a number, a date a YYYY-MM-DD text. So:

- a boolean or number variable compared for equality with a quoted text (`policy_found == 'yes'`)
  never equals it: `==` and `in` never hold, `!=` and `not in` always do;
- a date that does not exist (`'2024-13-45'`), or a date variable compared with a text not written
  YYYY-MM-DD (`'05/01/2024'`), is compared character by character with the dates the field holds, so
  the comparison holds or fails by the characters, never by the day.

Both are certain from the declared types and the literals, and silent at run time (no error, no
trace note), like an enum text no value has (expr_checks.enum_problems): `focal validate` reports them
as errors.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from datetime import date

from focal.config.expr_checks import NUMERIC_TYPES, _texts
from focal.config.hints import quoted

DATE_SHAPE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_NEGATED = (ast.NotEq, ast.NotIn)


def impossible_date(text: str) -> str | None:
    """Why a text written like a date (2024-13-45) is no day; None when it is one or is not written like one."""
    m = DATE_SHAPE.match(text)
    if not m:
        return None
    try:
        date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError as exc:
        return str(exc)
    return None


def _iso(text: str) -> str | None:
    """'2024-01-05' for '2024-1-5' (a day written without its zeros), else None."""
    m = DATE_SHAPE.match(text)
    return f"{int(m[1]):04d}-{int(m[2]):02d}-{int(m[3]):02d}" if m and not impossible_date(text) else None


def _equality(name: str, kind: str, texts: list[str], shown: str, negated: bool) -> str:
    holds = "always holds" if negated else "never holds"
    text = " or ".join(f"'{t}'" for t in texts)
    if kind == "boolean":
        return (f"'{name}' is a boolean field: it holds true or false, never the text {text}, so {quoted(shown)} {holds}; "
                f"test the field itself: '{name}' or 'not {name}'")
    numbers = [t for t in texts if _is_number(t)]
    fix = f": {quoted(shown.replace(repr(numbers[0]), numbers[0]))}" if len(texts) == 1 and numbers else ""
    return (f"'{name}' is a {kind} field: it holds a number, never the text {text}, so {quoted(shown)} {holds}; "
            f"write numbers without quotes{fix}")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _date_text(name: str, text: str, shown: str) -> str:
    iso = _iso(text)
    fix = f"write '{iso}'" if iso else "write the date as YYYY-MM-DD (e.g. '2024-05-31')"
    return (f"'{name}' is a date field, held as YYYY-MM-DD text (such as 2024-05-31), so {quoted(shown)} compares "
            f"'{text}' with it character by character, not as a day; {fix}")


def _pair(name: ast.AST, other: ast.AST, op: ast.cmpop, shown: str, types: Mapping[str, str]) -> str | None:
    """What is wrong with one comparison of the variable `name` with the literal `other`, if anything."""
    if not isinstance(name, ast.Name):
        return None
    kind = types.get(name.id)
    texts = _texts(other) if isinstance(op, ast.In | ast.NotIn) and isinstance(other, ast.List | ast.Tuple) else (
        _texts(other) if isinstance(other, ast.Constant) else [])
    if kind in NUMERIC_TYPES or kind == "boolean":
        if texts and isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn):
            return _equality(name.id, kind, texts, shown, isinstance(op, _NEGATED))
    elif kind == "date" and isinstance(op, (*_ORDERING, ast.Eq, ast.NotEq)) and isinstance(other, ast.Constant):
        text = other.value
        if isinstance(text, str) and text and not ISO_DATE.match(text) and not impossible_date(text):
            return _date_text(name.id, text, shown)
    return None


def literal_problems(tree: ast.Expression, types: Mapping[str, str]) -> list[str]:
    """Comparisons that never mean what they say (see the module). `types`: variable name → field type."""
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (why := impossible_date(node.value)):
            out.append(f"'{node.value}' is not a date ({why}): dates are compared as YYYY-MM-DD text, so a comparison "
                       "with it holds or fails by its characters, not by a day; write a date that exists, as YYYY-MM-DD")
        elif isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                shown = ast.unparse(ast.Compare(left=left, ops=[op], comparators=[right]))
                # `in` reads a variable on the left only: `'x' in name` looks inside its value
                sides = ((left, right),) if isinstance(op, ast.In | ast.NotIn) else ((left, right), (right, left))
                out += [m for a, b in sides if (m := _pair(a, b, op, shown, types))]
                left = right
    return list(dict.fromkeys(out))
