"""Enforcement and validation expressions: parsed with `ast`, checked against a whitelist, evaluated
only by simpleeval over plain data.

The whitelist is deliberately small: no attribute access (so no `__class__` escapes), no
comprehensions or lambdas (no generator frames), bounded length, and simpleeval's own caps on
powers and string sizes. simpleeval bounds a repeated list by its top-level length only, so
`[[1]*99999]*99999` (99999 references to one long list) would pass it and then hold a turn in
`min()` or `==`: lists and tuples are bounded here by all the elements they hold, nested ones counted,
before they are built (statically when written with literals, so `focal validate` reports them too).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from simpleeval import DEFAULT_OPERATORS, EvalWithCompoundTypes, safe_add, safe_mult

from focal import ast_parse
from focal.errors import ExpressionError

MAX_EXPRESSION_LENGTH = 500
MAX_STRING_VALUE = 10_000
MAX_SEQUENCE_ELEMENTS = 10_000  # elements of a list or tuple an expression builds, nested ones counted
MAX_ROUND_DIGITS = 100


def _contains(container: Any, item: Any) -> bool:
    if isinstance(container, str) and isinstance(item, str):
        return item.lower() in container.lower()
    return item in container


def _lower(value: Any) -> str:
    return str(value).lower()


def _round(value: Any, digits: Any = None) -> Any:
    # round(1, -10**100) computes 10**(10**100) before it answers
    if isinstance(digits, int) and abs(digits) > MAX_ROUND_DIGITS:
        raise ExpressionError(f"round() takes at most {MAX_ROUND_DIGITS} digits")
    return round(value, digits)


FUNCTIONS: dict[str, Any] = {
    "len": len,
    "min": min,
    "max": max,
    "abs": abs,
    "round": _round,
    "lower": _lower,
    "contains": _contains,
}
CONSTANTS = {"True": True, "False": False, "None": None, "true": True, "false": False}

_ALLOWED_NODES: tuple[type[ast.AST], ...] = (
    ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Call,
    ast.Name, ast.Constant, ast.List, ast.Tuple, ast.Load,
    ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot,
)


def parse(expression: str) -> ast.Expression:
    """Parse and check an expression; raise ExpressionError naming what is not allowed.

    The verdict is kept per expression string (the same rules are checked on every turn): the tree it
    returns is shared and must not be changed."""
    if not isinstance(expression, str) or not expression.strip():
        raise ExpressionError("expression is empty")
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise ExpressionError(f"expression is longer than {MAX_EXPRESSION_LENGTH} characters")
    checked = _checked(expression)
    if isinstance(checked, str):
        raise ExpressionError(checked)
    return checked


@lru_cache(maxsize=4096)
def _checked(expression: str) -> ast.Expression | str:
    """The checked tree, or the reason it is refused."""
    try:
        return _parse(expression)
    except ExpressionError as exc:
        return str(exc)


def _parse(expression: str) -> ast.Expression:
    try:
        tree = ast_parse.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"syntax error: {exc.msg}") from None
    nodes = list(ast.walk(tree))
    for node in nodes:  # the node kinds first, so a reason names the escape, not its outer call
        _check_kind(node)
    for node in nodes:
        for kind, check in _NODE_CHECKS:
            if isinstance(node, kind):
                check(node)
    return tree


def _check_kind(node: ast.AST) -> None:
    if isinstance(node, ast.Attribute):
        raise ExpressionError(f"attribute access '.{node.attr}' is not allowed")
    if not isinstance(node, _ALLOWED_NODES):
        raise ExpressionError(f"{type(node).__name__} is not allowed in expressions")


def _check_call(node: ast.Call) -> None:
    """Only the whitelisted functions, by name, with positional arguments."""
    if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
        name = node.func.id if isinstance(node.func, ast.Name) else "?"
        raise ExpressionError(f"function '{name}' is not allowed (allowed: {', '.join(sorted(FUNCTIONS))})")
    if node.keywords:
        raise ExpressionError("keyword arguments are not allowed")


def _check_name(node: ast.Name) -> None:
    if node.id.startswith("_"):
        raise ExpressionError(f"name '{node.id}' is not allowed (names may not start with '_')")


def _check_constant(node: ast.Constant) -> None:
    if isinstance(node.value, str) and len(node.value) > 200:
        raise ExpressionError("string literal longer than 200 characters")


def _check_sequence(node: ast.AST) -> None:
    """A list or tuple (or one built by `*` and `+`) of literals holds at most MAX_SEQUENCE_ELEMENTS."""
    _check_elements(_literal_elements(node) or 0)


def _check_binop(node: ast.BinOp) -> None:
    """No text repeated by `*`, sequences bounded, exponents literal and small."""
    if isinstance(node.op, ast.Mult) and any(
        isinstance(side, ast.Constant) and isinstance(side.value, str) for side in (node.left, node.right)
    ):
        raise ExpressionError("string repetition is not allowed")
    _check_sequence(node)
    if isinstance(node.op, ast.Pow):
        exponent = node.right
        if not (isinstance(exponent, ast.Constant) and isinstance(exponent.value, int | float) and abs(exponent.value) <= 100):
            raise ExpressionError("exponents must be literal numbers no larger than 100")


_NODE_CHECKS: tuple[tuple[type[ast.AST], Callable[[Any], None]], ...] = (
    (ast.Call, _check_call), (ast.Name, _check_name), (ast.Constant, _check_constant), (ast.BinOp, _check_binop),
    (ast.List, _check_sequence), (ast.Tuple, _check_sequence),
)


def _literal_elements(node: ast.AST) -> int | None:
    """Elements (nested ones counted) of a list or tuple written with literals, `*` by a number and `+`;
    None when it depends on a variable (then counted as it is built, see _Evaluator)."""
    if isinstance(node, ast.List | ast.Tuple):
        return sum(1 + (_literal_elements(item) or 0) for item in node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for sequence, times in ((node.left, node.right), (node.right, node.left)):
            elements = _literal_elements(sequence)
            if elements is not None and isinstance(times, ast.Constant) and type(times.value) is int:
                return elements * max(times.value, 0)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal_elements(node.left), _literal_elements(node.right)
        if left is not None and right is not None:
            return left + right
    return None


def _check_elements(count: int) -> None:
    if count > MAX_SEQUENCE_ELEMENTS:
        raise ExpressionError(f"a list or tuple of more than {MAX_SEQUENCE_ELEMENTS} elements (nested ones counted) "
                              "is not allowed")


def _elements(value: Any) -> int:
    """Elements a list, tuple or mapping holds, nested ones counted; each repeated reference counts again
    (comparing or searching visits every one). Stops counting past MAX_SEQUENCE_ELEMENTS."""
    count, stack = 0, [value]
    while stack:
        current = stack.pop()
        if isinstance(current, Mapping):
            current = list(current.values())
        if isinstance(current, list | tuple):
            count += len(current)
            if count > MAX_SEQUENCE_ELEMENTS:
                break
            stack.extend(item for item in current if isinstance(item, list | tuple | Mapping))
    return count


def _repeat(a: Any, b: Any) -> Any:
    for sequence, times in ((a, b), (b, a)):
        if isinstance(sequence, list | tuple) and isinstance(times, int) and times > 0:
            _check_elements(_elements(sequence) * times)
    return safe_mult(a, b)  # which bounds repeated text


def _concatenate(a: Any, b: Any) -> Any:
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        _check_elements(_elements(a) + _elements(b))
    return safe_add(a, b)  # which bounds joined text


def _modulo(a: Any, b: Any) -> Any:
    if isinstance(a, str):  # '%0999999999d' % 1 is a gigabyte of text
        raise ExpressionError("'%' formatting of text is not allowed")
    return a % b


OPERATORS = {**DEFAULT_OPERATORS, ast.Mult: _repeat, ast.Add: _concatenate, ast.Mod: _modulo}


class _Evaluator(EvalWithCompoundTypes):
    """The compound-types evaluator, so that the list and tuple literals the whitelist admits evaluate
    (`tier in ['gold', 'silver']`), bounded like the lists `*` and `+` build."""

    def _eval_list(self, node: ast.List) -> list[Any]:
        result: list[Any] = super()._eval_list(node)
        _check_elements(_elements(result))
        return result

    def _eval_tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        result: tuple[Any, ...] = super()._eval_tuple(node)
        _check_elements(_elements(result))
        return result


def names(expression: str) -> set[str]:
    """Variable names an expression reads (functions and constants excluded)."""
    return set(_names(parse(expression)))


@lru_cache(maxsize=4096)
def _names(tree: ast.Expression) -> frozenset[str]:
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return frozenset(
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in called and n.id not in CONSTANTS
    )


def _plain(value: Any, depth: int = 0) -> Any:
    """Accept only plain data (no objects with attributes or methods to reach through)."""
    if depth > 4:
        raise ExpressionError("variable value nested too deeply")
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        if len(value) > MAX_STRING_VALUE:
            raise ExpressionError("variable value is too long")
        return value
    if isinstance(value, list | tuple):
        return [_plain(v, depth + 1) for v in value][:1000]
    if isinstance(value, Mapping):
        return {str(k): _plain(v, depth + 1) for k, v in list(value.items())[:1000]}
    raise ExpressionError(f"variable of type {type(value).__name__} is not plain data")


def evaluate(expression: str, variables: Mapping[str, Any]) -> Any:
    tree = parse(expression)
    evaluator = _Evaluator(
        operators=dict(OPERATORS),
        names={**CONSTANTS, **{k: _plain(v) for k, v in variables.items()}},
        functions=dict(FUNCTIONS),
    )
    try:
        return evaluator.eval(expression.strip(), previously_parsed=tree.body)  # the checked tree, not a re-parse
    except ExpressionError:
        raise
    except Exception as exc:  # simpleeval raises many types (NameNotDefined, NumberTooHigh, TypeError, ...)
        raise ExpressionError(f"{type(exc).__name__}: {exc}") from None


def decide(expression: str, variables: Mapping[str, Any]) -> bool | None:
    """The expression's truth when it does not depend on the names `variables` lacks, else None. Three-valued
    over `and` / `or` / `not`: `not waived or hours >= 24` holds when waived is false, whatever hours is;
    any other part that reads an unknown name, or cannot be evaluated, is unknown."""
    return _decide(parse(expression).body, variables)


def _decide(node: ast.AST, variables: Mapping[str, Any]) -> bool | None:
    if isinstance(node, ast.BoolOp):
        parts = [_decide(v, variables) for v in node.values]
        decisive = isinstance(node.op, ast.Or)  # True settles an `or`, False settles an `and`
        if any(p is decisive for p in parts):
            return decisive
        return (not decisive) if all(p is not None for p in parts) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _decide(node.operand, variables)
        return None if inner is None else not inner
    called = {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id not in called} - set(CONSTANTS)
    if read - variables.keys():
        return None
    try:
        return bool(evaluate(ast.unparse(node), variables))
    except ExpressionError:
        return None
