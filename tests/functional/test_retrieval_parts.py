"""Two concerns in one message reach the turn as two rules, on the shipped retail example, through the real turn
(embedder, index, retrieve stage, rule filter): the second concern's rule used to fall out because it scored more
than the margin below the first concern's rule on the whole message's vector (focal.retrieval.message_parts)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from example_tools import reset_state

from focal.cli.conversation_tests import TENANT_ID, format_report, run_suite
from focal.config.loader import load_agent

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"

TWO_CONCERNS = [
    ("Can I send back shoes I wore once, and what time do you close on Fridays?", ["return_policy", "support_hours"]),
    ("My lamp came smashed. And what are your weekend hours?", ["damaged_item", "support_hours"]),
    ("I want a person to help me, and also how long is the return period?", ["human_handoff", "return_policy"]),
    ("What's your warranty on toasters, and can I pay by bank transfer?", ["warranty", "payment_methods"]),
]


@pytest.mark.parametrize(("message", "rules"), TWO_CONCERNS)
def test_each_concern_of_a_message_gets_its_rule(message, rules, tmp_path):
    reset_state(load_agent(RETAIL), TENANT_ID)
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": message, "turns": [
        {"user": message, "expect": {"matched_rules_include": rules}}]}]}, sort_keys=False))
    report = run_suite(RETAIL, suite)
    assert report.passed, "\n" + format_report(report)


def test_a_single_concern_with_a_comma_gets_no_extra_rule(tmp_path):
    reset_state(load_agent(RETAIL), TENANT_ID)
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": "one concern", "turns": [
        {"user": "Hello there, what are your opening hours on Saturday?",
         "expect": {"matched_rules_include": ["support_hours"], "matched_rules_exclude": ["return_policy", "damaged_item"]}}]}]},
        sort_keys=False))
    report = run_suite(RETAIL, suite)
    assert report.passed, "\n" + format_report(report)


TUTORIAL = Path(__file__).resolve().parents[2] / "examples" / "tutorial" / "agent.yaml"


def test_a_spanish_message_of_two_concerns_gets_both_rules_in_the_multilingual_space(tmp_path):
    """The tutorial declares en/es/de/fr with its translations: a Spanish turn is matched in the multilingual space,
    whose search takes the message's parts in one batch (focal.retrieval.multilingual.search_multilingual)."""
    message = "¿Abren ustedes los domingos por la mañana? Y otra cosa, ¿cuánto se paga de multa por cada día de retraso?"
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": "dos asuntos", "turns": [
        {"user": message, "expect": {"matched_rules_include": ["opening_hours", "fines"]}}]}]}, allow_unicode=True),
        encoding="utf-8")
    report = run_suite(TUTORIAL, suite)
    assert report.passed, "\n" + format_report(report)
