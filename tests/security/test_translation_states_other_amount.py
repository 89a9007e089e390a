"""A translated answer that states another amount than its original never reaches the customer under a cap.

The hard rules read the agent's own text in the file's language (focal.generation.original_text): the German or
French answer is composed again from the untranslated agent and both readings are enforced
(focal.enforcement.assess._both). A translation that says more than its original — a translator's slip or a
hostile file: "500 €" where the English says €{goodwill_amount}, filled with 50 — is what the customer would read,
so the amount it states must be judged too, and an amount the two texts disagree on is unknown: the offer is not made,
and a yes afterwards pays nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from goodwill_desk import GOODWILL_TOOLS, goodwill_agent
from written_agent import passes

AGENT = goodwill_agent("goodwill_slip", de_amount="500 €", fr_amount="500 euros")
TOOLS = GOODWILL_TOOLS

ASK = {  # opening, currency word, the translated offer's question, its amount as said, the fallback's cap, yes
    "de": ("Können Sie mir eine Kulanzzahlung geben?", "Euro", "Soll ich das tun", "500", "bis zu 50 €", "ja"),
    "fr": ("Pouvez-vous me faire un geste commercial ?", "euros", "Je continue", "500", "jusqu'à 50 €", "oui"),
}


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_a_translation_stating_more_than_its_original_is_not_offered_and_nothing_is_paid(tmp_path: Path, lang: str):
    opening, euros, question, stated, cap, yes = ASK[lang]
    passes(tmp_path, AGENT, TOOLS, [
        {"user": opening, "expect": {"scenario": "goodwill"}},
        {"user": "HH204518"},
        {"user": f"50 {euros}", "expect": {"violations": ["goodwill_cap_answer"], "response_contains": cap,
                                          "response_not_contains": [question, stated]}},
        {"user": yes, "expect": {"tool_calls": [], "response_not_contains": ["Erledigt", "C'est fait"]}},
    ])


def test_the_english_original_at_the_cap_is_offered_and_paid(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I'd like a goodwill payment", "expect": {"scenario": "goodwill"}},
        {"user": "HH204518"},
        {"user": "50 euros", "expect": {"violations": [], "step": "confirm", "response_contains": ["Shall I go ahead", "50"]}},
        {"user": "yes", "expect": {"tool_calls": [{"pay_goodwill": {"amount": 50}}]}},
    ])
