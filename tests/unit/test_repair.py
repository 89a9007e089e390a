"""A rule no draft can satisfy is not regenerated for (focal.enforcement.repair)."""

from __future__ import annotations

from pathlib import Path

from focal.config.loader import load_agent
from focal.enforcement.repair import unrepairable
from focal.models.agent import Rule, Scope
from focal.models.turn import Violation

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GUARDRAILS = load_agent(EXAMPLES / "guardrails" / "agent.yaml")
RETAIL = load_agent(EXAMPLES / "retail" / "agent.yaml")


def violated(rule_id: str, lane: str = "deterministic") -> list[Violation]:
    return [Violation(rule_id=rule_id, lane=lane, reason="x")]


def test_an_expression_that_errors_for_every_stated_value_cannot_be_repaired():
    rule = unrepairable(GUARDRAILS, violated("premium_price_check"), {})
    assert rule is not None and rule.id == "premium_price_check"  # len() of an amount: always an error


def test_a_cap_some_draft_can_meet_is_repairable():
    assert unrepairable(GUARDRAILS, violated("discount_cap"), {"discount_offered": 25.0}) is None
    assert unrepairable(RETAIL, violated("refund_cap"), {"order_total": 75.0, "is_premium": False}) is None
    assert unrepairable(RETAIL, violated("no_card_echo"), {}) is None  # a draft that echoes nothing passes


def test_a_rule_over_known_values_only_fails_for_every_draft():
    agent = RETAIL.model_copy(deep=True)
    agent.rules.append(Rule(id="premium_only", condition_text="c", action_text="a", scope=Scope.GLOBAL,
                            is_hard_constraint=True, enforcement_expression="is_premium"))
    assert unrepairable(agent, violated("premium_only"), {"is_premium": False}).id == "premium_only"
    assert unrepairable(agent, violated("premium_only"), {}).id == "premium_only"  # unknown: no draft makes it known


def test_judge_verdicts_output_checks_and_unprobeable_values_are_repairable():
    assert unrepairable(GUARDRAILS, violated("acknowledge_frustration", "judge"), {}) is None
    assert unrepairable(RETAIL, violated("relevance", "relevance"), {}) is None
    assert unrepairable(RETAIL, violated("no_competitors"), {}) is None  # a list: some draft names none
