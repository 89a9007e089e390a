"""A model's reading can only fill an enum slot with one of its allowed values: "gigantic" is no size
(asked again), "LARGE" is large."""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.cli.conversation_tests import run_suite

PIZZA = Path(__file__).resolve().parents[2] / "examples" / "pizza" / "agent.yaml"


def _size_turn(value: str) -> dict:
    return {"user": "make it that size", "model": {"sensor": {
        "detected_intent": "order_pizza", "intent_confidence": 0.95,
        "commands": [{"name": "SetSlot", "flow": "order_pizza", "slot": "size", "value": value}]}}}


def test_an_enum_value_outside_the_allowed_values_is_no_value(tmp_path):
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [
        {"name": "outside", "turns": [{"user": "I'd like to order a pizza"},
                                      {**_size_turn("gigantic"), "expect": {"step": "ask_size"}}]},
        {"name": "any case", "turns": [{"user": "I'd like to order a pizza"},
                                       {**_size_turn("LARGE"), "expect": {"step": "ask_pizza"}}]},
    ]}))
    report = run_suite(PIZZA, suite)
    assert [(c.name, c.passed, [t.failures for t in c.turns]) for c in report.conversations] == [
        ("outside", True, [[], []]), ("any case", True, [[], []])]
