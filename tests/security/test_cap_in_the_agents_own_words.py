"""A money cap read in the agent's own words, on the bike-sharing agent a newcomer wrote blind (tests/data/newcomer_velocity):

- a hint is found as the head of a compound: the German confirmation "… eine Kulanzgutschrift von 30,00 Euro gut"
  (hint "Gutschrift") promises €30 against `credit_promised <= 20` — it reached the customer;
- an amount named as one of the field's `other_roles` is that role's, even where the clause moves money: "Your €150
  deposit is refunded …" is no €150 goodwill credit — every English deposit answer was blocked by the cap.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from focal.cli.conversation_tests import format_report, run_suite
from focal.config.loader import load_agent
from focal.enforcement.reading import offline_reading

AGENT = Path(__file__).resolve().parents[1] / "data" / "newcomer_velocity" / "agent.yaml"


def _suite(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tests.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.mark.parametrize(("message", "shown"), [
    ("Ich möchte eine Kulanzgutschrift von 30 Euro, Kundennummer VC654321", "30,00"),
    ("I'd like a goodwill credit of 50 euros, my customer number is VC123456", "50.00"),
    ("Je voudrais un geste commercial de 25 euros, numéro client VC123456", "25,00"),
])
def test_a_credit_over_the_cap_is_never_offered_in_any_language(tmp_path, message, shown):
    report = run_suite(str(AGENT), _suite(tmp_path, f"""\
        conversations:
          - name: over the cap
            turns:
              - user: "{message}"
                expect: {{response_not_contains: "{shown}"}}
              - user: "ja"
                expect: {{tool_calls: []}}
    """))
    assert report.passed, "\n" + format_report(report)


@pytest.mark.parametrize("message", ["How long does the deposit refund take?",
                                     "Wie lange dauert die Rückzahlung der Kaution?"])
def test_a_deposit_answer_is_no_goodwill_credit(tmp_path, message):
    report = run_suite(str(AGENT), _suite(tmp_path, f"""\
        conversations:
          - name: deposit
            turns:
              - user: "{message}"
                expect: {{matched_rules_include: [deposit_timing], violations: []}}
    """))
    assert report.passed, "\n" + format_report(report)


@pytest.mark.parametrize(("draft", "promised"), [
    ("Ich schreibe dem Konto VC654321 eine Kulanzgutschrift von 30,00 Euro gut.", 30.0),
    ("Wir haben Ihnen zwei Gutschriften von je 15 Euro erteilt.", 15.0),
    ("Your €150 deposit is refunded within 10 working days after you cancel your pass.", None),
    ("Your €150 deposit refund was requested on 2026-11-20.", None),
])
def test_what_the_agents_own_text_promises_for_the_field(draft, promised):
    reading, _ = offline_reading(load_agent(AGENT), draft, {"credit_promised"}, model_written=False)
    assert reading.values.get("credit_promised") == promised and not reading.uncertain
