"""simpleeval escape payloads: rejected by the evaluator and by `focal validate`, each with a reason.

The evaluator runs only through simpleeval over plain data, after an `ast` whitelist: no attribute
access (no `__class__` walks), no comprehensions, lambdas or generators (no frames), no subscripts,
no unbounded exponents, no string repetition, no names starting with '_', bounded lengths.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from focal import expressions
from focal.errors import ExpressionError
from focal.main import main

PAYLOADS = {
    "dunder walk": ("().__class__.__bases__[0].__subclasses__()", "attribute access"),
    "function attribute": ("len.__self__", "attribute access"),
    "generator frame": ("(x for x in [1]).gi_frame", "attribute access"),
    "generator expression": ("max(x for x in [1, 2])", "GeneratorExp"),
    "list comprehension": ("[x for x in [1, 2]]", "ListComp"),
    "lambda": ("(lambda: 1)()", "Lambda"),
    "import": ("__import__('os')", "not allowed"),
    "builtins name": ("__builtins__", "not allowed"),
    "underscore name": ("_secret == 1", "not allowed"),
    "huge exponent": ("9 ** 9 ** 9", "exponents"),
    "big literal exponent": ("2 ** 10000", "exponents"),
    "string repetition": ("'a' * 100000000 == ''", "string repetition"),
    "long string literal": ("x == '" + "a" * 300 + "'", "longer than 200"),
    "long expression": ("x + " * 200 + "x", "longer than 500"),
    "subscript": ("[1, 2][0] == 1", "Subscript"),
    "keyword call": ("round(x, ndigits=2) == 1", "keyword"),
    "unlisted function": ("open('/etc/passwd')", "not allowed"),
    "walrus": ("(y := 1) == 1", "NamedExpr"),
    "f-string": ("f'{x}' == '1'", "JoinedStr"),
    "starred": ("max(*[1, 2]) == 2", "Starred"),
}


@pytest.mark.parametrize("expression, reason", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_the_evaluator_rejects_the_payload(expression, reason):
    with pytest.raises(ExpressionError, match=reason):
        expressions.evaluate(expression, {"x": 1})



REFUSALS = [
    ("", "expression is empty"),
    ("x ==", "syntax error: invalid syntax"),
    ("a.b", "attribute access '.b' is not allowed"),
    ("foo(a.b)", "attribute access '.b' is not allowed"),  # the escape is named, not the call around it
    ("[x for x in y]", "ListComp is not allowed in expressions"),
    ("foo(1)", "function 'foo' is not allowed (allowed: abs, contains, len, lower, max, min, round)"),
    ("(lambda: 1)()", "Lambda is not allowed in expressions"),
    ("round(x, ndigits=2)", "keyword is not allowed in expressions"),
    ("_a", "name '_a' is not allowed (names may not start with '_')"),
    ("foo(_a)", "function 'foo' is not allowed (allowed: abs, contains, len, lower, max, min, round)"),
    ("_a + foo(1)", "name '_a' is not allowed (names may not start with '_')"),
    ("_a * 'b'", "string repetition is not allowed"),
    ("3 * 'ab'", "string repetition is not allowed"),
    ("x == '" + "a" * 201 + "'", "string literal longer than 200 characters"),
    ("[[1] * 10001]", "a list or tuple of more than 10000 elements (nested ones counted) is not allowed"),
    ("[1] * 5000 + [2] * 5001", "a list or tuple of more than 10000 elements (nested ones counted) is not allowed"),
    ("(1, 2) * 6000", "a list or tuple of more than 10000 elements (nested ones counted) is not allowed"),
    ("x ** 101", "exponents must be literal numbers no larger than 100"),
    ("x ** y", "exponents must be literal numbers no larger than 100"),
    ("len(x) ** -100", "exponents must be literal numbers no larger than 100"),
]


@pytest.mark.parametrize(("expression", "reason"), REFUSALS)
def test_each_refusal_says_exactly_why(expression, reason):
    with pytest.raises(ExpressionError) as caught:
        expressions.parse(expression)
    assert str(caught.value) == reason


@pytest.mark.parametrize("expression", ["x ** 2.5", "[1, 2] * x", "x ** 100", "[1] * 5000 + [2] * 5000",
                                        "contains(lower(x), 'a') and len([1, (2, 3)]) == 2 or not x in [1] * 3"])
def test_what_the_whitelist_admits(expression):
    assert expressions.parse(expression) is not None

def test_values_that_are_not_plain_data_are_refused():
    class Sneaky:
        secret = "x"

    with pytest.raises(ExpressionError, match="not plain data"):
        expressions.evaluate("x == 1", {"x": Sneaky()})
    with pytest.raises(ExpressionError, match="too long"):
        expressions.evaluate("len(x) > 0", {"x": "a" * 20_000})


def test_an_ordinary_expression_still_evaluates():
    assert expressions.evaluate("refund_amount <= 50 or is_premium", {"refund_amount": 75, "is_premium": True}) is True
    assert expressions.evaluate("2 ** 10 == 1024 and len(names) == 0", {"names": []}) is True


AGENT = """
id: escapes
name: Escapes
profile_field_definitions:
  - {field_name: x, field_type: number, default: 1}
rules:
  - id: r1
    condition_text: anything
    action_text: anything
    is_hard_constraint: true
    enforcement_expression: {expression!r}
"""


@pytest.mark.parametrize("expression, reason", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_focal_validate_rejects_the_payload_naming_the_field(tmp_path: Path, capsys, expression, reason):
    path = tmp_path / "agent.yaml"
    path.write_text(AGENT.replace("{expression!r}", "'" + expression.replace("'", "''") + "'"), encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr()
    text = out.out + out.err
    assert "rules[0].enforcement_expression" in text
    assert reason.lower() in text.lower()


def test_list_and_tuple_literals_evaluate():
    from focal.expressions import evaluate

    assert evaluate("tier in ['gold', 'silver']", {"tier": "gold"}) is True
    assert evaluate("tier in ('gold', 'silver')", {"tier": "basic"}) is False
    assert evaluate("len([a, b]) == 2", {"a": 1, "b": 2}) is True
