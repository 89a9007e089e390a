"""Expressions that parse but would fail every time they run, found without running them.

simpleeval raises at run time (and a hard constraint that cannot be evaluated blocks its answer or
its tool call), so `focal validate` reports these beforehand: a whitelisted function called with
the wrong number of arguments, `in` against a number, division by a literal zero, and ordering or
arithmetic that mixes text with a number or a date (YYYY-MM-DD text) with a number. Findings on
literals alone are certain (errors); findings that rest on a variable's declared type (`len()` of a
money field, a date field compared with a money field by < or >) are warnings: values are brought
to their field's type when read, so such a rule fails closed on every run (it blocks, never lets
through), which is safe: the agent still loads (examples/guardrails keeps one on purpose) and the
message says what the rule, guard or transition then does.

`enum_problems` finds a text compared with an enum variable (`plan == 'unlimted'`, `plan in [...]`) or
looked up in an entity list (`'Verizn' in competitors`) that is none of its allowed_values: the text
is never the variable's value (errors). Comparisons that run but never mean what they say (a boolean
equal to a text, an impossible date) are in expr_types.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping

from focal.config.hints import did_you_mean

NUMERIC_TYPES = frozenset({"money", "percentage", "integer", "number"})
# name → (fewest, most) positional arguments; None: no upper bound
ARITY: dict[str, tuple[int, int | None]] = {
    "len": (1, 1), "abs": (1, 1), "lower": (1, 1), "contains": (2, 2), "round": (1, 2), "min": (1, None), "max": (1, None),
}
_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def _typed(*nodes: ast.AST) -> bool:
    """Whether a finding rests on a variable's declared type rather than on literals only."""
    return any(isinstance(n, ast.Name) or (isinstance(n, ast.UnaryOp) and isinstance(n.operand, ast.Name)) for n in nodes)


def _kind(node: ast.AST, types: Mapping[str, str]) -> str | None:
    """'number', 'text' or None (unknown) for a literal or a typed variable."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or node.value is None:
            return None
        if isinstance(node.value, int | float):
            return "number"
        if isinstance(node.value, str):
            return "text"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return _kind(node.operand, types)
    if isinstance(node, ast.Name) and types.get(node.id) in NUMERIC_TYPES:
        return "number"
    if isinstance(node, ast.Name) and types.get(node.id) == "date":
        return "date"  # held as YYYY-MM-DD text (sensing.extraction)
    return None


def _with_type(node: ast.AST, types: Mapping[str, str]) -> str:
    """'incident_date' (date) for a typed variable, the literal as written otherwise."""
    if isinstance(node, ast.Name) and node.id in types:
        return f"'{node.id}' ({types[node.id]})"
    return _show(node)


def _date_and_number(left: ast.AST, right: ast.AST, types: Mapping[str, str], what: str) -> str:
    return (f"{_with_type(left, types)} and {_with_type(right, types)} {what}: a date is held as a text such as "
            "2024-05-31, never a number; compare a date with another date field or a quoted date ('2024-05-31')")


def _show(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return f"'{node.id}'"
    return ast.unparse(node)


Finding = tuple[str, bool]  # (message, certain: found on literals alone)


def static_problems(tree: ast.Expression, types: Mapping[str, str]) -> list[Finding]:
    """What would fail on every evaluation: (message, certain) each. `types`: variable name → field type."""
    out: list[Finding] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            out += _call_problem(node, types)
        elif isinstance(node, ast.Compare):
            out += _compare_problems(node, types)
        elif isinstance(node, ast.BinOp):
            out += _arithmetic_problem(node, types)
    return list(dict.fromkeys(out))


def _kinds(left: ast.AST, right: ast.AST, types: Mapping[str, str]) -> set[str | None]:
    return {_kind(left, types), _kind(right, types)}


def _arity(fewest: int, most: int | None) -> str:
    """'1', '1 or 2' or 'at least 1' argument(s)."""
    if fewest == most:
        return str(fewest)
    return f"{fewest} or {most}" if most else f"at least {fewest}"


def _call_problem(node: ast.Call, types: Mapping[str, str]) -> list[Finding]:
    """A whitelisted function given the wrong number of arguments, or a number where it needs a list or a text."""
    if not isinstance(node.func, ast.Name) or node.func.id not in ARITY:
        return []
    name, given = node.func.id, len(node.args)
    fewest, most = ARITY[name]
    if given < fewest or (most is not None and given > most):
        return [(f"{name}() takes {_arity(fewest, most)} argument(s), {given} given", True)]
    first = node.args[0]
    if name == "len" and _kind(first, types) == "number":
        return [(f"len() of {_show(first)}, a number, fails: numbers have no length", not _typed(first))]
    if name in ("min", "max") and given == 1 and _kind(first, types) == "number":
        return [(f"{name}() of one number fails: give two or more values, or a list", not _typed(first))]
    return []


def _compare_problems(node: ast.Compare, types: Mapping[str, str]) -> list[Finding]:
    """Each link of a (chained) comparison: `in` against a number, ordering across kinds."""
    out: list[Finding] = []
    left = node.left
    for op, right in zip(node.ops, node.comparators, strict=True):
        out += _comparison_problem(op, left, right, types)
        left = right
    return out


def _comparison_problem(op: ast.cmpop, left: ast.AST, right: ast.AST, types: Mapping[str, str]) -> list[Finding]:
    if isinstance(op, ast.In | ast.NotIn):
        if _kind(right, types) == "number" or (isinstance(right, ast.Constant) and not isinstance(right.value, str)):
            return [(f"'in' needs a list or a text on its right, not {_show(right)}", not _typed(right))]
        return []
    if not isinstance(op, _ORDERING):
        return []
    kinds = _kinds(left, right, types)
    if kinds == {"number", "text"}:
        return [(f"{_show(left)} and {_show(right)} cannot be ordered: one is a number, the other a text "
                 "(write numbers without quotes)", not _typed(left, right))]
    if kinds == {"number", "date"}:
        return [(_date_and_number(left, right, types, "cannot be ordered"), False)]
    return []


def _arithmetic_problem(node: ast.BinOp, types: Mapping[str, str]) -> list[Finding]:
    """Division by a literal zero, or arithmetic mixing a number with a text or a date."""
    divisor = node.right
    if isinstance(node.op, ast.Div | ast.FloorDiv | ast.Mod) and isinstance(divisor, ast.Constant) \
            and divisor.value == 0 and not isinstance(divisor.value, bool):
        return [("division by zero", True)]
    if not isinstance(node.op, _ARITHMETIC):
        return []
    kinds = _kinds(node.left, node.right, types)
    if kinds == {"number", "text"}:
        return [(f"{_show(node.left)} and {_show(node.right)} mix a number with a text", not _typed(node.left, node.right))]
    if kinds == {"number", "date"}:
        return [(_date_and_number(node.left, node.right, types, "cannot be added or subtracted"), False)]
    return []


def _texts(node: ast.AST) -> list[str]:
    """The quoted texts of a text literal or of a list / tuple of them (other elements skipped)."""
    items = node.elts if isinstance(node, ast.List | ast.Tuple) else [node]
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]


def _compared(node: ast.Compare) -> Iterator[tuple[str, list[str], str]]:
    """(variable name, the texts it is compared with, 'equals' or 'holds') for each comparison of a name with
    text literals: `name == 'x'`, `name in ['x', 'y']` (equals), `'x' in name` (holds)."""
    left = node.left
    for op, right in zip(node.ops, node.comparators, strict=True):
        if isinstance(op, ast.Eq | ast.NotEq):
            for name, other in ((left, right), (right, left)):
                if isinstance(name, ast.Name) and isinstance(other, ast.Constant):
                    yield name.id, _texts(other), "equals"
        elif isinstance(op, ast.In | ast.NotIn):
            if isinstance(left, ast.Name) and isinstance(right, ast.List | ast.Tuple):
                yield left.id, _texts(right), "equals"
            elif isinstance(right, ast.Name) and isinstance(left, ast.Constant):
                yield right.id, _texts(left), "holds"
        left = right


def enum_problems(tree: ast.Expression, enums: Mapping[str, tuple[str, list[str]]]) -> list[str]:
    """Texts compared with an enum or entity_list variable that are none of its allowed values.
    `enums`: name → (field_type, allowed_values)."""
    out: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        for name, texts, verb in _compared(node):
            kind, allowed = enums.get(name, ("", []))
            if not allowed or verb != ("holds" if kind == "entity_list" else "equals"):
                continue  # `'x' in plan` looks inside the text; `list == 'x'` is another mistake
            for text in texts:
                if text not in allowed:
                    out.append(f"'{text}' is not an allowed value of {kind} field '{name}' ({', '.join(allowed)}), "
                               f"so '{name}' never {verb} it" + did_you_mean(text, allowed))
    return list(dict.fromkeys(out))
