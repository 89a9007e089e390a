"""Expressions that parse but would fail on every evaluation, found without running them
(focal.config.expr_checks.static_problems): each finding's exact message, and whether it is certain (literals
only: an error) or rests on a variable's declared type (a warning)."""

from __future__ import annotations

import ast

import pytest

from focal.config.expr_checks import static_problems

TYPES = {"amount": "money", "count": "integer", "day": "date", "name": "string", "rate": "percentage"}


def found(expression: str) -> list[tuple[str, bool]]:
    return static_problems(ast.parse(expression, mode="eval"), TYPES)


@pytest.mark.parametrize(("expression", "expected"), [
    ("len()", [("len() takes 1 argument(s), 0 given", True)]),
    ("contains(name)", [("contains() takes 2 argument(s), 1 given", True)]),
    ("round(amount, 1, 2)", [("round() takes 1 or 2 argument(s), 3 given", True)]),
    ("min()", [("min() takes at least 1 argument(s), 0 given", True)]),
    ("len(5)", [("len() of 5, a number, fails: numbers have no length", True)]),
    ("len(-amount)", [("len() of -amount, a number, fails: numbers have no length", False)]),
    ("len(amount) > 1", [("len() of 'amount', a number, fails: numbers have no length", False)]),
    ("max(3)", [("max() of one number fails: give two or more values, or a list", True)]),
    ("min(count)", [("min() of one number fails: give two or more values, or a list", False)]),
    ("'a' in 5", [("'in' needs a list or a text on its right, not 5", True)]),
    ("'a' not in None", [("'in' needs a list or a text on its right, not None", True)]),
    ("1 in amount", [("'in' needs a list or a text on its right, not 'amount'", False)]),
    ("amount < '100'", [("'amount' and '100' cannot be ordered: one is a number, the other a text "
                         "(write numbers without quotes)", False)]),
    ("1 <= '2' <= 3", [("1 and '2' cannot be ordered: one is a number, the other a text (write numbers without quotes)",
                        True),
                       ("'2' and 3 cannot be ordered: one is a number, the other a text (write numbers without quotes)",
                        True)]),
    ("day > amount", [("'day' (date) and 'amount' (money) cannot be ordered: a date is held as a text such as "
                       "2024-05-31, never a number; compare a date with another date field or a quoted date "
                       "('2024-05-31')", False)]),
    ("count / 0", [("division by zero", True)]),
    ("count % 0.0 + count // 0", [("division by zero", True)]),
    ("count / False", []),
    ("amount + 'x'", [("'amount' and 'x' mix a number with a text", False)]),
    ("2 * 'ab'", [("2 and 'ab' mix a number with a text", True)]),
    ("day - 1", [("'day' (date) and 1 cannot be added or subtracted: a date is held as a text such as 2024-05-31, "
                  "never a number; compare a date with another date field or a quoted date ('2024-05-31')", False)]),
    ("amount == 'x' and name < 'b' and day < '2024-01-01' and rate * 2 > count and True + 1", []),
    ("len(name) > 3 and min(1, 2) and max([amount]) and 'a' in name and day in [1]", []),
])
def test_each_finding(expression, expected):
    assert found(expression) == expected


def test_a_finding_made_twice_is_listed_once_in_the_order_found():
    assert found("len() or contains() or len()") == [
        ("len() takes 1 argument(s), 0 given", True), ("contains() takes 2 argument(s), 0 given", True)]
