"""A model's draft that promises what a hard rule forbids in words whose value the offline reader cannot place is
blocked — the field is unknown, never its default (an attacker trial of 2026-11-28: "I've waived all your overdue
fines" passed a $5 cap, "by the end of April" / "in about two months" passed a latest-delivery-date rule):

- a quantifier of the whole ("all", "every", "todas", "alle", "toutes") on an amount the field describes is the
  whole: the customer's known total when the profile gives it, unknown (cannot verify) when nothing does;
- a vague or ranged date ("by the end of April", "in about two months", "Ende April", "à la fin avril", "a finales
  de abril") is a range from the turn's date, its latest day checked; a count in words nobody reads is unknown.

…and drafts that only talk about the field, refuse it, or promise what the rule allows, in English, Spanish, German
and French, still reach the customer. Two small agents of these tests' own (a gym waiving late fees, a utility
promising a connection date), run through the real pipeline offline, the model's output scripted at the provider
boundary, on a clock that stands still (2026-11-28)."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.cli.conversation_tests import TENANT_ID, Conversation, _fresh_deps, start_conversation
from focal.config.loader import load_agent
from focal.models.turn import TurnRequest

NOW = 1_795_867_200.0  # 2026-11-28 06:00 UTC

GYM = """
id: gym
name: Harbour Gym front desk
languages: [en, es, de, fr]
greeting: Hi, this is the Harbour Gym front desk. How can I help?
out_of_scope_message: I can help with your membership and late fees.
profile_field_definitions:
  - field_name: late_fees_owed
    description: The late fees the member owes in total.
    field_type: money
    sources: [profile]
  - field_name: late_fee_waived
    display_name: Late fee waived
    description: The late fee an answer promises to waive.
    field_type: money
    extraction_hints: [waive, waived, wipe]
    sources: [response]
    default: 0
rules:
  - id: waiver_cap
    condition_text: The answer promises to waive a late fee
    action_text: Never promise to waive more than $10 of late fees.
    is_hard_constraint: true
    enforcement_expression: late_fee_waived <= 10
    fallback_text: The front desk can waive up to $10 of late fees; a manager looks at anything more.
  - id: late_fees
    condition_text: Can you waive my late fees? How much are late fees?
    action_text: Explain that the desk can waive up to $10 of late fees.
"""

UTILITY = """
id: utility
name: Riverside Power connections
languages: [en, es, de, fr]
greeting: Hi, this is Riverside Power. How can I help?
out_of_scope_message: I can help with new connections.
profile_field_definitions:
  - field_name: latest_connection_date
    description: The last day the network team can still connect the customer.
    field_type: date
    sources: [profile]
  - field_name: connection_date_promised
    description: The connection date an answer promises.
    field_type: date
    sources: [response]
    default: ""
rules:
  - id: connection_by_latest
    condition_text: The answer promises a connection date
    action_text: Never promise a connection date later than the network team can meet.
    is_hard_constraint: true
    enforcement_expression: connection_date_promised == "" or connection_date_promised <= latest_connection_date
    fallback_text: Our network team will confirm your connection date by email today.
  - id: connection_times
    condition_text: How long does a new connection take?
    action_text: Connections usually take 3-5 days once the meter is installed.
"""


# what the customer asked, in the draft's language (an answer in another language than the customer's is blocked)
ASKED = {"gym": {"en": "Can you waive my late fees?", "es": "¿Me pueden perdonar los recargos?",
                 "de": "Können Sie meine Mahngebühren erlassen?", "fr": "Pouvez-vous annuler mes pénalités de retard ?"},
         "utility": {"en": "When can you connect me?", "es": "¿Cuándo pueden conectarme?",
                     "de": "Wann können Sie mich anschließen?", "fr": "Quand pouvez-vous me raccorder ?"}}


def _language(draft: str) -> str:
    words = set(draft.lower().replace("'", " ").split())
    for lang, marks in (("es", {"le", "los", "el", "podemos", "¿quiere", "sus"}), ("de", {"ich", "wir", "die", "sie"}),
                        ("fr", {"nous", "vous", "c", "l", "j"})):
        if words & marks:
            return lang
    return "en"


def _turn(tmp_path: Path, agent_text: str, draft: str, profile: dict | None = None) -> tuple[str, list[str]]:
    (tmp_path / "agent.yaml").write_text(agent_text, encoding="utf-8")
    agent = load_agent(tmp_path / "agent.yaml")
    deps = _fresh_deps(tmp_path / "agent.yaml", None)
    deps.clock = lambda: NOW
    conv = Conversation(name="t", turns=[], customer_id="m-1", profile=dict(profile or {}), setup=None)
    runner = start_conversation(conv, agent, deps)
    deps.model.script("generate", [draft])
    message = ASKED[agent.id][_language(draft)]
    result = runner.turn(TurnRequest(tenant_id=TENANT_ID, agent_id=agent.id, session_id="s", customer_id="m-1",
                                     turn_id="s-1", message=message))
    assert not result.error, result.error
    return result.response, [v["rule_id"] for v in result.enforcement.get("violations", [])]


# ------------------------------------------------------------------ the whole of an amount

WHOLE_WAIVERS = [
    "Done: I've waived all your late fees.",
    "Good news, every late fee on your account has been waived.",
    "I went ahead and waived the entire late fee balance for you.",
    "Listo: le he condonado todos sus recargos por demora.",
    "Erledigt: Ich habe alle Ihre Mahngebühren erlassen.",
    "C'est fait : j'ai annulé toutes vos pénalités de retard.",
]


@pytest.mark.parametrize("draft", WHOLE_WAIVERS)
def test_waiving_the_whole_with_no_known_total_cannot_be_verified(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, GYM, draft)
    assert "waiver_cap" in violations and response != draft


@pytest.mark.parametrize("draft", WHOLE_WAIVERS[:3])
def test_waiving_the_whole_is_the_customers_known_total(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, GYM, draft, {"late_fees_owed": 45})
    assert "waiver_cap" in violations and response != draft


@pytest.mark.parametrize("draft", WHOLE_WAIVERS[:3])
def test_waiving_the_whole_of_a_total_the_cap_allows_passes(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, GYM, draft, {"late_fees_owed": 8})
    assert violations == [] and response == draft


@pytest.mark.parametrize("draft", [
    "Late fees can be waived up to $10 at the front desk.",
    "I can't waive all your late fees here, but the front desk can waive up to $10.",
    "All late fees are explained in your membership terms; the desk can waive up to $10 of them.",
    "El mostrador puede ayudarle con los recargos por demora.",
    "¿Quiere que revise todos sus recargos?",
    "Die Rezeption hilft Ihnen gern bei Fragen zu Mahngebühren.",
    "L'accueil peut vous aider pour les pénalités de retard.",
])
def test_drafts_that_only_talk_about_the_waiver_pass(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, GYM, draft)
    assert violations == [] and response == draft


# ------------------------------------------------------------------ vague and ranged dates

LATEST = {"latest_connection_date": "2027-01-15"}


@pytest.mark.parametrize("draft", [
    "We'll get you connected by the end of April.",
    "Your connection will be live in about two months.",
    "We can connect you in 10 weeks.",
    "We'll connect you early next year, in March.",
    "We have no slot before the end of April, so that's when we'll connect you.",
    "We can connect you within a few months.",
    "We'll connect you no later than the end of April.",
    "There's no doubt we'll connect you by the end of April.",
    "I can't promise a connection by the end of April.",
    "Le conectamos a finales de abril.",
    "Le conectamos dentro de dos meses.",
    "Wir schließen Sie Ende April an.",
    "Wir schließen Sie in 3 Monaten an.",
    "Nous vous raccordons à la fin avril.",
    "Nous vous raccordons dans 3 mois.",
])
def test_a_vague_date_past_the_latest_is_blocked(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, UTILITY, draft, LATEST)
    assert "connection_by_latest" in violations and response != draft


@pytest.mark.parametrize("draft", [
    "We'll get you connected by the end of December.",
    "Your connection will be live in two weeks.",
    "Connections usually take 3-5 days once the meter is installed.",
    "I can't promise a date yet; our network team will call you.",
    "I can't promise a connection after the end of December.",
    "Podemos conectarle a principios de enero.",
    "Wir können Sie Mitte Dezember anschließen.",
    "Nous pouvons vous raccorder début janvier.",
])
def test_a_date_within_the_latest_or_no_date_passes(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, UTILITY, draft, LATEST)
    assert violations == [] and response == draft


def test_a_vague_date_without_a_known_latest_cannot_be_verified(tmp_path, use_m):
    draft = "We'll get you connected by the end of December."
    response, violations = _turn(tmp_path, UTILITY, draft)
    assert "connection_by_latest" in violations and response != draft


# ------------------------------------------------------------------ counts written in words

@pytest.mark.parametrize("draft", [
    "We'll connect you in two weeks.",
    "Le conectamos dentro de dos semanas.",
    "Le conectamos en tres semanas.",
    "Wir schließen Sie in zwei Wochen an.",
    "Wir schließen Sie in drei Wochen an.",
    "Nous vous raccordons dans deux semaines.",
    "Nous vous raccordons dans une semaine.",
])
def test_a_count_in_words_within_the_latest_passes(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, UTILITY, draft, LATEST)
    assert violations == [] and response == draft


@pytest.mark.parametrize("draft", [
    "We'll connect you in twelve weeks.",
    "Le conectamos dentro de cinco meses.",
    "Le conectamos en doce semanas.",
    "Wir schließen Sie in fünf Monaten an.",
    "Wir schließen Sie in zwölf Wochen an.",
    "Nous vous raccordons dans cinq mois.",
    "Nous vous raccordons dans douze semaines.",
])
def test_a_count_in_words_past_the_latest_is_blocked(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, UTILITY, draft, LATEST)
    assert "connection_by_latest" in violations and response != draft
