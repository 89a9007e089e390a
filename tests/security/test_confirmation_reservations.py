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
    setup: tools.py:reset_state   # A1001 not yet refunded, whatever ran before
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


@pytest.mark.parametrize("message", ["Before that, how long do returns usually take?",
                                     "what happens to my loyalty points", "hmm, I'm not sure about this",
                                     "what if I changed my mind next week"])
def test_a_model_yes_the_message_contradicts_runs_nothing(tmp_path, message):
    """A question, an unsure message, or one heard offline as a no, a stop or a hypothetical is no yes,
    whatever the model reads."""
    suite = tmp_path / "tests.yaml"
    suite.write_text(SUITE.format(message=message), encoding="utf-8")
    report = run_suite(RETAIL, suite)
    assert report.conversations and report.passed, "\n" + format_report(report)


ONLY_THE_MODEL = """
conversations:
  - name: a yes only the model hears
    customer_id: c-100
    setup: tools.py:reset_state
    turns:
      - user: Please refund order A1001
        expect: {step: confirm_refund}
      - user: "{message}"
        model:
          sensor:
            detected_intent: refund
            intent_confidence: 0.99
            commands:
              - {name: AffirmConfirmation, flow: refund}
        expect: {tool_calls: [], approval_state: awaiting_approval}
"""


def test_a_yes_only_the_model_hears_waits_for_approval(tmp_path):
    """Words no offline reading takes for a yes: the model is the only witness, so the side effect waits for
    a person instead of running on the model's word."""
    suite = tmp_path / "tests.yaml"
    suite.write_text(ONLY_THE_MODEL.replace("{message}", "let the machine roll, friend"), encoding="utf-8")
    report = run_suite(RETAIL, suite)
    assert report.conversations and report.passed, "\n" + format_report(report)

