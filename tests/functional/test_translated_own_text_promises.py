"""The agent's own text said in a translation commits to what its original commits to: a confirmation that offers more
than a hard rule allows is blocked in German and French as it is in English, and one within the rule is offered in
each. Found by a newcomer's claims desk (session 10): "I'll pay a goodwill gesture of €80.00" was blocked by the €50
cap, its German translation "Ich zahle eine Kulanzzahlung von 80,00 €. Soll ich das tun?" was offered — the rule's hints
are English words and read nothing in the translation."""

from __future__ import annotations

from pathlib import Path

import pytest
from goodwill_desk import GOODWILL_TOOLS, goodwill_agent
from written_agent import passes

AGENT = goodwill_agent("goodwill_desk")
TOOLS = GOODWILL_TOOLS

ASK = {
    "en": ("I'd like a goodwill payment", "euros", "Shall I go ahead", "up to €50", "yes"),
    "de": ("Können Sie mir eine Kulanzzahlung geben?", "Euro", "Soll ich das tun", "bis zu 50 €", "ja"),
    "fr": ("Pouvez-vous me faire un geste commercial ?", "euros", "Je continue", "jusqu'à 50 €", "oui"),
}


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_an_offer_above_the_cap_is_blocked_in_every_language_and_nothing_is_paid(tmp_path: Path, lang: str):
    opening, euros, question, cap, yes = ASK[lang]
    passes(tmp_path, AGENT, TOOLS, [
        {"user": opening, "expect": {"scenario": "goodwill"}},
        {"user": "HH204518"},
        {"user": f"80 {euros}", "expect": {"violations": ["goodwill_cap_answer"], "response_contains": cap,
                                          "response_not_contains": [question, "80"]}},
        {"user": yes, "expect": {"tool_calls": [], "response_not_contains": ["Done", "Erledigt", "C'est fait"]}},
    ])


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_an_offer_within_the_cap_is_offered_and_paid_in_every_language(tmp_path: Path, lang: str):
    opening, euros, question, _, yes = ASK[lang]
    passes(tmp_path, AGENT, TOOLS, [
        {"user": opening, "expect": {"scenario": "goodwill"}},
        {"user": "HH204518"},
        {"user": f"30 {euros}", "expect": {"violations": [], "step": "confirm", "response_contains": [question, "30"]}},
        {"user": yes, "expect": {"tool_calls": [{"pay_goodwill": {"amount": 30}}]}},
    ])
