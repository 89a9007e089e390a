"""A guard with an unknown operand is decided by its logic when the result does not depend on it, and blocks
when it does (fail closed): `not is_gift_card or balance >= difference` holds for a card payment whatever the
balance is, and blocks a gift card whose balance is unknown."""

from __future__ import annotations

import pytest

from focal.enforcement.guards import evaluate
from focal.models.agent import Rule

GIFT = Rule(id="gift_balance", condition_text="a payment is changed", action_text="cover it",
            is_hard_constraint=True, guarded_tool_ids=["pay"],
            enforcement_expression="not is_gift_card or balance >= difference")


@pytest.mark.parametrize(("values", "passed", "why"), [
    ({"is_gift_card": False, "difference": 30}, True, "holds whatever balance is"),
    ({"is_gift_card": False, "balance": None, "difference": 30}, True, "holds whatever balance is"),
    ({"is_gift_card": True, "balance": 50, "difference": 30}, True, "holds"),
    ({"is_gift_card": True, "balance": 10, "difference": 30}, False, "is false"),
    ({"is_gift_card": True, "difference": 30}, False, "cannot verify: balance unknown"),
    ({"balance": 100, "difference": 30}, True, "holds whatever is_gift_card is"),
    ({"balance": 10, "difference": 30}, False, "cannot verify: is_gift_card unknown"),
])
def test_an_unknown_operand_blocks_only_when_the_result_depends_on_it(values, passed, why):
    verdict = evaluate(GIFT, values)
    assert verdict.passed is passed and why in verdict.reason, verdict


def test_an_and_with_an_unknown_part_is_decided_only_by_a_false_part():
    rule = GIFT.model_copy(update={"enforcement_expression": "amount <= 50 and customer_confirmed"})
    assert evaluate(rule, {"amount": 80}).passed is False
    assert evaluate(rule, {"amount": 20}).passed is False  # customer_confirmed unknown: the result depends on it
    assert evaluate(rule, {"amount": 20, "customer_confirmed": True}).passed is True
