"""A GLOBAL hard rule on answers that reads a field only a tool sets, with no default, as a newcomer's bike-rental
agent had it (`refund_promised <= rental_price`, rental_price set by the look-up): `focal validate` said OK, and then
every answer before the look-up — a policy answer, the hand-off notice, a not-found reply — was replaced by the
rule's fallback_text ("cannot verify: rental_price unknown"). Validate now warns, naming the rule, field and tool;
a default, a scope after the tool, or an expression settled without the field is not reported."""

from __future__ import annotations

from typing import Any

from focal.config.validate import semantic_warnings
from focal.models.agent import AgentConfig


def _agent(price: dict[str, Any], rule: dict[str, Any]) -> AgentConfig:
    return AgentConfig.model_validate({
        "id": "bikes", "name": "Bike rentals",
        "profile_field_definitions": [
            {"field_name": "rental_id", "field_type": "id", "description": "the rental number", "sources": ["message"]},
            {"field_name": "rental_price", "field_type": "money", "description": "the price", "sources": ["tool"], **price},
            {"field_name": "money_back", "field_type": "money", "description": "what an answer gives back",
             "sources": ["response"], "default": 0},
        ],
        "tools": [{"id": "find_rental", "kind": "python", "entrypoint": "tools.py:find_rental",
                   "input": {"rental_id": {"type": "id"}}, "output": {"price": "rental_price"}}],
        "scenarios": [{"id": "status", "name": "Rental status", "entry_examples": ["check my rental"],
                       "entry_step_id": "identify",
                       "steps": [{"id": "identify", "slots": [{"name": "rental_id", "type": "id", "prompt": "Which rental?"}],
                                  "action": ["find_rental"], "transitions": [{"target": "done"}]},
                                 {"id": "done", "response_template": "Found it."}]}],
        "rules": [{"id": "cap", "condition_text": "an answer gives money back", "action_text": "never above the price",
                   "is_hard_constraint": True, "fallback_text": "I can't promise that.", **rule}],
    })


def _tool_only(agent: AgentConfig) -> list[str]:
    return [p.message for p in semantic_warnings(agent) if "only 'find_rental' sets" in p.message]


def test_a_global_rule_reading_a_tool_only_field_without_default_is_a_warning_naming_rule_field_and_tool():
    agent = _agent({}, {"enforcement_expression": "money_back <= rental_price"})
    [warning] = [p for p in semantic_warnings(agent) if "only 'find_rental' sets" in p.message]
    assert warning.severity == "warning"
    assert warning.path == "rules[0].enforcement_expression"
    assert "GLOBAL hard constraint 'cap' reads 'rental_price'" in warning.message
    assert "is replaced by this rule's fallback_text" in warning.message
    assert "give 'rental_price' a default" in warning.message


def test_a_default_on_the_field_is_not_reported():
    assert _tool_only(_agent({"default": 0}, {"enforcement_expression": "money_back <= rental_price"})) == []


def test_a_rule_scoped_to_the_step_after_the_tool_is_not_reported():
    rule = {"enforcement_expression": "money_back <= rental_price", "scope": "STEP", "scope_id": "status.done"}
    assert _tool_only(_agent({}, rule)) == []


def test_an_expression_settled_without_the_field_is_not_reported():
    # money_back's default 0 settles the `or` whatever rental_price is
    assert _tool_only(_agent({}, {"enforcement_expression": "money_back <= 0 or money_back <= rental_price"})) == []
