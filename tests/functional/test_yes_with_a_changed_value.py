"""A yes that comes with a changed value confirms nothing: what would run is no longer what was shown
(newcomer finding: a "yes" also set waive_fee, and the cancellation ran with a waiver never shown).
A compromised or mistaken sensor reading is played by a scripted model."""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.cli.conversation_tests import run_suite
from test_correction_after_side_effect import AGENT, TOOLS


def test_a_yes_read_together_with_a_new_value_asks_again_with_that_value(tmp_path: Path):
    (tmp_path / "agent.yaml").write_text(AGENT)
    (tmp_path / "tools.py").write_text(TOOLS)
    yes_and_more = {"sensor": {"commands": [
        {"name": "AffirmConfirmation"},
        {"name": "SetSlot", "flow": "repair", "slot": "quoted_cost", "value": 300}]}}
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": "yes with a change", "turns": [
        {"user": "My washing machine is broken"},
        {"user": "the washing machine"},
        {"user": "$250", "expect": {"step": "confirm_booking", "response_contains": "$250"}},
        {"user": "yes, and it was three hundred", "model": yes_and_more,
         "expect": {"tool_calls": [], "step": "confirm_booking", "response_contains": "$300"}},
        {"user": "yes", "expect": {"tool_calls": ["book_repair"]}},
    ]}]}))
    report = run_suite(tmp_path / "agent.yaml", suite)
    assert [t.failures for t in report.conversations[0].turns] == [[], [], [], [], []], report.conversations[0]
