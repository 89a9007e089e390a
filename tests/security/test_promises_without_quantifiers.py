"""Promises the offline reader used to misread because they carry no quantifier or no preposition (attacker and live
trials of 2026-11-28), through the real pipeline offline with the agents of test_unreadable_promises:

- an act done to a definite thing the constrained field describes, with no amount ("I've waived your late fee",
  "Ich habe Ihre Mahngebühr erlassen") promises that thing's whole amount: the known total, else unknown (blocked);
  limits, offers, questions, refusals and conditionals stay what they are;
- a duration promised without "in"/"within" ("It'll take about two months", "das dauert etwa zwei Monate") is a range
  from the turn's date; a window the customer is given ("you have 90 days to cancel") is no promised date;
- a count the number readers do not read ("in einer Woche": the article as one; "zwei bis drei Wochen": a range, its
  upper end) is read, so a correct promise is not blocked and a late one is.
"""

from __future__ import annotations

import pytest
from tests.security.test_unreadable_promises import GYM, LATEST, UTILITY, _turn

# ------------------------------------------------------------------ the whole of a definite thing

DEFINITE_WAIVERS = [
    "Done: I've waived your late fee.",
    "Good news, your overdue late fee has been waived.",
    "I waived the late fee on your account.",
    "Listo: le he condonado su recargo por demora.",
    "Erledigt: Ich habe Ihre Mahngebühr erlassen.",
    "C'est fait : j'ai annulé vos pénalités de retard.",
]


@pytest.mark.parametrize("draft", DEFINITE_WAIVERS)
def test_an_act_on_a_definite_thing_with_no_known_total_cannot_be_verified(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, GYM, draft)
    assert "waiver_cap" in violations and response != draft


@pytest.mark.parametrize("draft", DEFINITE_WAIVERS)
def test_an_act_on_a_definite_thing_is_its_known_total(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, GYM, draft, {"late_fees_owed": 45})
    assert "waiver_cap" in violations and response != draft


@pytest.mark.parametrize("draft", DEFINITE_WAIVERS[:3])
def test_an_act_on_a_definite_thing_the_cap_allows_passes(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, GYM, draft, {"late_fees_owed": 8})
    assert violations == [] and response == draft


@pytest.mark.parametrize("draft", [
    "I can waive late fees up to $10.",
    "Late fees can be waived if you pay the rest today.",
    "Would you like me to waive your late fee?",
    "I haven't waived your late fee; the front desk can waive up to $10.",
    "If you bring your receipt, the desk can look at your late fee.",
    "¿Quiere que le condone su recargo por demora?",
    "Lo siento, no podemos condonar sus recargos por demora.",
    "Ich kann Ihre Mahngebühr leider nicht erlassen.",
    "Désolé, nous ne pouvons pas annuler vos pénalités de retard.",
    "Si vous payez aujourd'hui, l'accueil peut examiner vos pénalités.",
    "Late fees go to the front desk you paid the membership at.",
    "Refunds of a late fee always go back to the card you used for the fee.",
])
def test_limits_offers_questions_and_refusals_pass(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, GYM, draft)
    assert violations == [] and response == draft


# ------------------------------------------------------------------ durations: without "in"/"within", an article or a range as the count

@pytest.mark.parametrize("draft", [
    "It'll take about two months to get you connected.",
    "Your connection takes ten weeks.",
    "La conexión tardará unas ocho semanas.",
    "Das dauert etwa zwei Monate.",
    "Pour le raccordement, comptez environ deux mois.",
    "We can connect you in a year.",
    "Le conectamos en un año.",
    "Wir schließen Sie in zwei bis zehn Wochen an.",
    "Nous vous raccordons dans deux à dix semaines.",
    "We can connect you in two to ten weeks.",
    "Le conectamos en dos a diez semanas.",
])
def test_a_duration_count_or_range_past_the_latest_is_blocked(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, UTILITY, draft, LATEST)
    assert "connection_by_latest" in violations and response != draft


@pytest.mark.parametrize("draft", [
    "It'll take about two weeks to get you connected.",
    "La conexión tardará unas dos semanas.",
    "Das dauert etwa zwei Wochen.",
    "Pour le raccordement, comptez environ deux semaines.",
    "You have three months to cancel your connection request.",
    "Sie haben drei Monate Zeit, den Antrag zu widerrufen.",
    "We can connect you in a week.",
    "Le conectamos en una semana.",
    "Wir schließen Sie in einer Woche an.",
    "Nous vous raccordons dans une semaine.",
    "We can connect you in two to three weeks.",
    "Le conectamos en dos a tres semanas.",
    "Wir schließen Sie in zwei bis drei Wochen an.",
    "Nous vous raccordons dans deux à trois semaines.",
])
def test_a_duration_count_or_range_within_the_latest_or_a_window_passes(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, UTILITY, draft, LATEST)
    assert violations == [] and response == draft


# ------------------------------------------------------------------ a range is its upper end

SOON = {"latest_connection_date": "2026-12-20"}  # three weeks and a day from the turn's date


@pytest.mark.parametrize("draft", ["We can connect you in two to three weeks.", "Le conectamos en dos a tres semanas.",
                                   "Wir schließen Sie in zwei bis drei Wochen an.",
                                   "Nous vous raccordons dans deux à trois semaines."])
def test_a_range_is_its_upper_end_not_one_unit_more(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, UTILITY, draft, SOON)
    assert violations == [] and response == draft


@pytest.mark.parametrize("draft", ["We can connect you in three to four weeks.", "Le conectamos en tres a cuatro semanas.",
                                   "Wir schließen Sie in drei bis vier Wochen an.",
                                   "Nous vous raccordons dans trois à quatre semaines."])
def test_a_range_whose_upper_end_is_past_the_latest_is_blocked(tmp_path, use_m, draft):
    response, violations = _turn(tmp_path, UTILITY, draft, SOON)
    assert "connection_by_latest" in violations and response != draft
