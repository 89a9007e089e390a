"""How far an action stays inside the guards on it: the distance to a limit, read from the expression."""

from __future__ import annotations

import ast
from typing import Any

from focal import expressions
from focal.errors import ExpressionError


def _clip(x: float) -> float:
    return max(0.0, min(1.0, float(x)))


def _value(node: ast.AST, variables: dict[str, Any]) -> Any:
    return expressions.evaluate(ast.unparse(node), variables)


def _room(value: Any, limit: Any) -> float:
    """Share of the limit left: (limit − value) / max(|limit|, |value|); 0 at or past it. A comparison
    that holds between non-numbers (dates as text) has no distance to measure: 1."""
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (value, limit)):
        return 1.0
    scale = max(abs(float(limit)), abs(float(value)))
    if scale == 0:
        return 0.0  # 0 <= 0: holds, with nothing to spare
    return _clip((float(limit) - float(value)) / scale)


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _headroom(node: ast.AST, variables: dict[str, Any], measures: frozenset[str]) -> float:
    if isinstance(node, ast.BoolOp):
        rooms = [_headroom(v, variables, measures) for v in node.values]
        return min(rooms) if isinstance(node.op, ast.And) else max(rooms)
    if isinstance(node, ast.Compare):
        rooms, left = [], node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            a, b = _value(left, variables), _value(right, variables)
            if not _value(ast.Compare(left=left, ops=[op], comparators=[right]), variables):
                return 0.0
            sized = bool((_names(left) | _names(right)) & measures)  # an amount, not a count or a time
            if sized and isinstance(op, ast.Lt | ast.LtE):
                rooms.append(_room(a, b))
            elif sized and isinstance(op, ast.Gt | ast.GtE):
                rooms.append(_room(b, a))
            left = right
        return min(rooms, default=1.0)
    return 1.0 if _value(node, variables) else 0.0  # a condition with no distance to measure: it holds or not


def guard_headroom(expression: str, variables: dict[str, Any], measures: frozenset[str] | set[str] = frozenset()) -> float:
    """How far a call stays inside a guard: 1.0 far from any limit or merely holding, 0.0 at or past it.

    Only comparisons that read a `measures` name (the size of the action: money, percentages) have a
    distance: `amount <= 50` with amount 48 leaves 0.04; `order_total <= 50 or is_premium` leaves 1.0
    for a Premium member (the limit does not bind) and (50 − total) / 50 otherwise. A count at its
    allowance (`certificate_count <= 1`) or a time window (`booked_hours_ago <= 24`) just holds: 1.0."""
    try:
        tree = expressions.parse(expression)
        return _headroom(tree.body, variables, frozenset(measures))
    except ExpressionError:
        raise
    except Exception as exc:  # noqa: BLE001 - anything else unreadable is unreadable too
        raise ExpressionError(f"{type(exc).__name__}: {exc}") from None
