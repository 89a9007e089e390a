"""A yes followed by details at the card agent's dispute confirmation, in each of its languages: a yes that refuses the
transaction shown opens nothing, a yes with another amount than the one shown opens nothing either and asks again
(never "I didn't quite understand"), and a yes carrying the amount and the transaction shown opens the dispute."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from focal.cli.conversation_tests import format_report, run_suite
from focal.models.engine_texts import version

CARDS = Path(__file__).resolve().parents[2] / "examples" / "cards" / "agent.yaml"
# (the request, a yes that refuses the transaction, a yes with another amount, a yes whose details agree)
TURNS = {
    "en": ("I want to dispute a charge", "yes, but not for TX-1003", "yes, go ahead with $40",
           "yes, go ahead with the $312 on TX-1003"),
    "es": ("Quiero reclamar un cargo", "sí, pero no por TX-1003", "sí, adelante con 40 dólares",
           "sí, adelante con los 312 dólares de TX-1003"),
    "de": ("Ich möchte eine Abbuchung reklamieren", "ja, aber nicht für TX-1003", "ja, mach das mit 40 Dollar",
           "ja, mach das mit den 312 Dollar für TX-1003"),
    "fr": ("Je veux contester un prélèvement", "oui mais pas pour TX-1003", "oui, allez-y avec 40 dollars",
           "oui, allez-y pour les 312 dollars sur TX-1003"),
}


def _conversation(lang: str) -> dict:
    request, refused, other_amount, agreeing = TURNS[lang]
    not_understood = version("not_understood", lang)
    return {"name": f"{lang}: a yes with details at the dispute confirmation", "customer_id": "c-verified",
            "profile": {"is_verified": True}, "setup": "tools.py:reset_state", "turns": [
                {"user": request, "expect": {"scenario": "dispute", "step": "ask_transaction"}},
                {"user": "TX-1003", "expect": {"step": "confirm_dispute", "tool_calls": ["lookup_transaction"]}},
                {"user": refused, "expect": {"step": "confirm_dispute", "tool_calls": [],
                                             "response_not_contains": not_understood}},
                {"user": other_amount, "expect": {"step": "confirm_dispute", "tool_calls": [],
                                                  "response_not_contains": not_understood}},
                {"user": agreeing, "expect": {"tool_calls": [{"open_dispute": {"transaction_id": "TX-1003"}}],
                                              "step": "dispute_opened"}},
            ]}


@pytest.mark.parametrize("lang", list(TURNS))
def test_a_yes_with_details_at_the_dispute_confirmation(tmp_path, lang):
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [_conversation(lang)]}, sort_keys=False, allow_unicode=True))
    report = run_suite(CARDS, suite)
    assert report.passed, "\n" + format_report(report)
