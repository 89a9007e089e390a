"""A yes that is taken back or put under a condition runs nothing — read offline, or read by a model
that calls it a confirmation (the scripted sensor below does exactly that)."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.cli.conversation_tests import format_report, run_suite

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"

SUITE = """
conversations:
  - name: a hedged yes
    customer_id: c-100
    turns:
      - user: Please refund order A1001
        expect: {{step: confirm_refund}}
      - user: "{message}"
        model:
          sensor:
            detected_intent: refund
            intent_confidence: 0.95
            commands:
              - {{name: AffirmConfirmation, flow: refund}}
        expect:
          tool_calls: []
          step: confirm_refund
"""


@pytest.mark.parametrize("message", ["yes please, don\u2019t do it yet", "yes, wait", "yes but only half of it",
                                     "sure, unless it takes a week", "ok, not yet"])
def test_a_model_reading_a_hedged_yes_as_a_confirmation_runs_nothing(tmp_path, message):
    suite = tmp_path / "tests.yaml"
    suite.write_text(SUITE.format(message=message), encoding="utf-8")
    report = run_suite(RETAIL, suite)
    assert report.conversations and report.passed, "\n" + format_report(report)
