"""Enforcement and validation expressions: parsed with `ast`, checked against a whitelist, evaluated
only by simpleeval over plain data.

The whitelist is deliberately small: no attribute access (so no `__class__` escapes), no
comprehensions or lambdas (no generator frames), bounded length, and simpleeval's own caps on
powers and string sizes.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from simpleeval import EvalWithCompoundTypes

from focal import ast_parse
from focal.errors import ExpressionError

MAX_EXPRESSION_LENGTH = 500
MAX_STRING_VALUE = 10_000


def _contains(container: Any, item: Any) -> bool:
    if isinstance(container, str) and isinstance(item, str):
        return item.lower() in container.lower()
    return item in container


def _lower(value: Any) -> str:
    return str(value).lower()


FUNCTIONS: dict[str, Any] = {
    "len": len,
    "min": min,
    "max": max,
    "abs": abs,
    "round": round,
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
        if isinstance(node, ast.Attribute):
            raise ExpressionError(f"attribute access '.{node.attr}' is not allowed")
        if not isinstance(node, _ALLOWED_NODES):
            raise ExpressionError(f"{type(node).__name__} is not allowed in expressions")
    for node in nodes:
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
                name = node.func.id if isinstance(node.func, ast.Name) else "?"
                raise ExpressionError(f"function '{name}' is not allowed (allowed: {', '.join(sorted(FUNCTIONS))})")
            if node.keywords:
                raise ExpressionError("keyword arguments are not allowed")
        if isinstance(node, ast.Name) and node.id.startswith("_"):
            raise ExpressionError(f"name '{node.id}' is not allowed (names may not start with '_')")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and any(
            isinstance(side, ast.Constant) and isinstance(side.value, str) for side in (node.left, node.right)
        ):
            raise ExpressionError("string repetition is not allowed")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) > 200:
            raise ExpressionError("string literal longer than 200 characters")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            exponent = node.right
            if not (isinstance(exponent, ast.Constant) and isinstance(exponent.value, int | float) and abs(exponent.value) <= 100):
                raise ExpressionError("exponents must be literal numbers no larger than 100")
    return tree


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
    # The compound-types evaluator, so that the list and tuple literals the whitelist admits evaluate
    # (`tier in ['gold', 'silver']`); comprehensions stay refused by `parse`.
    evaluator = EvalWithCompoundTypes(
        names={**CONSTANTS, **{k: _plain(v) for k, v in variables.items()}},
        functions=dict(FUNCTIONS),
    )
    try:
        return evaluator.eval(expression.strip(), previously_parsed=tree.body)  # the checked tree, not a re-parse
    except ExpressionError:
        raise
    except Exception as exc:  # simpleeval raises many types (NameNotDefined, NumberTooHigh, TypeError, ...)
        raise ExpressionError(f"{type(exc).__name__}: {exc}") from None
