"""A yes/no rule read by hint words (never admit liability, never promise future prices) holds however a model words
the forbidden thing: "We take full responsibility for the damage" has none of the liability field's hints, and it
reached the customer (tests/data/newcomer_insurance/README.md, a known leftover). Each model draft is replayed at the
provider boundary through the real pipeline (`focal test`, the shipped defaults, no verifying model): a sentence heard
near a hint in meaning makes the field unknown, and unknown never passes a hard rule. The honest drafts on the same
subjects, and the rule's own compliant wording, still reach the customer as written."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest
import yaml

from focal.cli.conversation_tests import format_report, run_suite
from focal.cli.suite_report import TurnReport
from focal.config.loader import load_agent
from focal.enforcement.assess import Assessment
from focal.enforcement.heard_by_meaning import hear_by_meaning
from focal.enforcement.reading import DraftReading

DATA = Path(__file__).resolve().parents[1] / "data"
INSURANCE, ENERGY = DATA / "newcomer_insurance" / "agent.yaml", DATA / "newcomer_energy" / "agent.yaml"
ROOFER = "The roofer you sent made the leak worse. Whose fault is it?"
PRICES = "Will my prices go up next year?"


def _turn(tmp_path: Path, agent: Path, message: str, draft: str, expect: dict) -> TurnReport:
    generated = json.dumps({"text": draft, "commitments": {}})
    conversation = {"name": draft, "setup": "tools.py:reset_state",
                    "turns": [{"user": message, "model": {"generate": [generated]}, "expect": expect}]}
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [conversation]}), encoding="utf-8")
    report = run_suite(agent, suite)
    assert report.conversations and report.conversations[0].turns, "\n" + format_report(report)
    return report.conversations[0].turns[0]


@pytest.mark.parametrize(("agent", "message", "draft", "rule"), [
    (INSURANCE, ROOFER, "We take full responsibility for the damage to your roof.", "no_liability"),
    (INSURANCE, ROOFER, "That was entirely our doing, and we own the consequences.", "no_liability"),
    (INSURANCE, ROOFER, "I'm sorry. The blame for this lies with us.", "no_liability"),
    (ENERGY, PRICES, "Relax, your tariff won't get any more expensive next year.", "no_price_cap_promise"),
    (ENERGY, PRICES, "Your energy prices are certain to go down in the spring.", "no_price_cap_promise"),
])
def test_a_forbidden_yes_no_in_other_words_never_reaches_the_customer(tmp_path, agent, message, draft, rule):
    turn = _turn(tmp_path, agent, message, draft, {"violations": [rule]})
    assert draft[:25] not in turn.response, turn.response
    assert turn.passed, turn.failures + turn.why


@pytest.mark.parametrize(("agent", "message", "draft"), [
    (INSURANCE, ROOFER, "A claims handler will review your claim and reply within five working days."),
    (INSURANCE, ROOFER, "I'm not able to say who is responsible; a claims handler will decide."),  # the rule's own words
    (ENERGY, PRICES, "Your current rates are printed on your latest bill."),
])
def test_an_honest_draft_on_the_same_subject_is_said_as_written(tmp_path, agent, message, draft):
    turn = _turn(tmp_path, agent, message, draft, {"violations": []})
    assert turn.response == draft, turn.why
    assert turn.passed, turn.failures


class _Failing:
    def embed(self, texts):
        raise RuntimeError("embedder down")


class _Near:
    """The draft's sentence and the liability hint 'our fault' share one direction; every other text its own."""

    NEAR = {"We will sort this out for you.", "Wir übernehmen die volle Verantwortung für den Schaden.", "our fault",
            "It was not our fault, but we will sort this out."}

    def embed(self, texts):
        vectors = np.zeros((len(texts), 4096), dtype=np.float32)
        for i, t in enumerate(texts):
            vectors[i, 0 if t in self.NEAR else 1 + zlib.crc32(t.encode()) % 4095] = 1.0
        return vectors


def _heard(embedder, text: str, lang: str = "en") -> dict[str, str]:
    agent = load_agent(INSURANCE)
    found = Assessment(reading=DraftReading())
    hear_by_meaning(agent, {"liability_admitted", "goodwill_promised"}, text, found, lang, embedder)
    return found.reading.uncertain


def test_an_embedder_that_fails_leaves_the_field_unknown():
    assert list(_heard(_Failing(), "We will sort this out for you.")) == ["liability_admitted"]


def test_only_yes_no_fields_read_by_hints_are_heard():
    """The goodwill amount is read by the amount reader; a sentence heard near a hint raises the yes/no field only."""
    assert list(_heard(_Near(), "We will sort this out for you.")) == ["liability_admitted"]
    assert _heard(_Near(), "A claims handler will look at it.") == {}


def test_a_draft_in_another_language_is_left_to_the_reader():
    """The hints are English: a German draft is heard in no English space (the reader already leaves the field
    unknown for a sentence in another language)."""
    assert _heard(_Near(), "Wir übernehmen die volle Verantwortung für den Schaden.", lang="de") == {}


def test_a_sentence_in_the_hints_own_words_is_left_to_the_reader():
    """The reader reads a hint's own words, refusals included ("I can't say it was our fault"): heard by meaning
    only when none of them is there."""
    assert _heard(_Near(), "It was not our fault, but we will sort this out.") == {}
