"""The hints `focal validate` adds: type names from other languages, and what an expression that does
not parse most likely meant (quoted texts left alone, the corrected form only when it parses)."""

from __future__ import annotations

import ast

import pytest

from focal.config.expr_checks import enum_problems
from focal.config.hints import closest, expression_hint, quoted, synonym_hint

TYPES = ["string", "integer", "number", "money", "percentage", "boolean", "enum", "date", "id", "entity_list"]


@pytest.mark.parametrize(("written", "meant"), [("float", "number"), ("Double", "number"), ("int", "integer"),
                                                ("str", "string"), ("dollars", "money"), ("list", "entity_list")])
def test_a_type_synonym_names_the_field_type(written, meant):
    assert synonym_hint(written, TYPES) == f"; did you mean '{meant}'?"


def test_a_synonym_is_only_offered_when_it_is_among_the_choices():
    assert synonym_hint("float", ["GLOBAL", "SCENARIO", "STEP"]) == ""
    assert synonym_hint("whatever", TYPES) == ""


@pytest.mark.parametrize(("expr", "hint"), [
    ("account_found = true", "; use == to compare: 'account_found == true'"),
    ("refund_amount <= $50.5", "; write amounts without the currency sign: 'refund_amount <= 50.5'"),
    ("a || b", "; write 'or' for ||: 'a or b'"),
    ("note == 'a=b' and x = 1", "; use == to compare: \"note == 'a=b' and x == 1\""),  # the quoted '=' is kept
    ("x = (", "; use == to compare"),  # still invalid once fixed: the reason alone
    ("x <= (", ""),
    ("note == '$5' and (", ""),  # a '$' inside a text is no slip
])
def test_expression_hints(expr, hint):
    assert expression_hint(expr) == hint


def test_quoted_shortens_and_picks_the_quote():
    assert quoted("a == 1") == "'a == 1'"
    assert quoted("a == 'x'") == "\"a == 'x'\""
    assert quoted("x" * 100) == "'" + "x" * 79 + "…'"


def test_closest():
    assert closest("roaming_ref", ["roaming_reference", "plan_reference"]) == "roaming_reference"
    assert closest("zzz", ["roaming_reference"]) is None


ENUMS = {"plan": ("enum", ["basic", "plus"]), "carriers": ("entity_list", ["Verizon"])}


@pytest.mark.parametrize(("expr", "count"), [
    ("plan == 'basc'", 1), ("plan != 'basc'", 1), ("'basc' == plan", 1), ("plan in ('basic', 'pluss')", 1),
    ("'Verizn' in carriers", 1), ("'Verizn' not in carriers", 1),
    ("plan == 'basic'", 0), ("'bas' in plan", 0), ("plan == other", 0), ("unknown == 'x'", 0), ("carriers == 'x'", 0),
])
def test_enum_problems(expr, count):
    assert len(enum_problems(ast.parse(expr, mode="eval"), ENUMS)) == count
