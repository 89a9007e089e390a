"""Words the customer adds to a yes fill at most one of the values the confirmation showed: "yes, for order A1011",
said to "Change the delivery address of order A1004 to 10 Downing Street…?", changes the order (the question is
asked again with it) and leaves the address as it was — it never becomes the address "order A1011" as well, which
the next yes would then write. Found by the attacker trial of 2026-11-28 (entry R41) on the shipped retail agent."""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.cli.conversation_tests import format_report, run_suite

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"
ADDRESS = "10 Downing Street, London SW1A 2AA"
OFFER_A1004 = f"Change the delivery address of order A1004 to {ADDRESS}?"


def _run(tmp_path: Path, turns: list[dict]) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [
        {"name": "one span", "customer_id": "c-200", "setup": "tools.py:reset_state", "turns": [
            {"user": "I need to change my delivery address", "expect": {"scenario": "change_address"}},
            {"user": "A1004", "expect": {"step": "ask_address"}},
            {"user": ADDRESS, "expect": {"step": "confirm_address", "response_contains": OFFER_A1004}},
            *turns]}]}), encoding="utf-8")
    report = run_suite(RETAIL, suite)
    assert report.conversations and report.passed, "\n" + format_report(report)


def test_an_id_after_the_yes_changes_the_order_and_not_the_address(tmp_path):
    _run(tmp_path, [
        {"user": "yes, for order A1011",
         "expect": {"step": "confirm_address", "tool_calls": [{"lookup_order": {"order_id": "A1011"}}],
                    "response_contains": f"Change the delivery address of order A1011 to {ADDRESS}?"}},
        {"user": "yes", "expect": {"tool_calls": [{"update_address": {"order_id": "A1011", "new_address": ADDRESS}}]}},
    ])


def test_a_bare_id_after_the_yes_is_no_address_either(tmp_path):
    _run(tmp_path, [
        {"user": "yes, A1011",
         "expect": {"step": "confirm_address",
                    "response_contains": f"Change the delivery address of order A1011 to {ADDRESS}?",
                    "response_not_contains": "to A1011"}},
    ])


def test_a_new_address_after_the_yes_is_still_read(tmp_path):
    _run(tmp_path, [
        {"user": "yes but make it 1 Infinite Loop, Cupertino CA 95014",
         "expect": {"step": "confirm_address",
                    "response_contains": "Change the delivery address of order A1004 to 1 Infinite Loop, Cupertino CA 95014?"}},
    ])


def test_an_id_and_a_new_address_after_the_yes_change_both(tmp_path):
    _run(tmp_path, [
        {"user": "yes, for order A1011 to 9 Hill Street, Leeds LS1 4AP",
         "expect": {"step": "confirm_address",
                    "response_contains": "Change the delivery address of order A1011 to 9 Hill Street, Leeds LS1 4AP?"}},
    ])
