"""Vague and ranged dates (focal.sensing.date_ranges): each is a range whose latest day a "not later than" rule checks
— from the turn's date, in English, Spanish, German and French — or a date whose latest day cannot be formed (None),
never nothing; a refused phrase, a window the customer is given and an exact date are no vague date."""

from __future__ import annotations

from datetime import date

import pytest

from focal.sensing.date_ranges import vague_dates

TODAY = date(2026, 11, 28)
LANGS = ("es", "de", "fr")


def _latest(text: str, today: date | None = TODAY) -> list[date | None]:
    return sorted({r.latest for r in vague_dates(text, LANGS, today)}, key=lambda d: d or date.max)


@pytest.mark.parametrize(("text", "latest"), [
    ("We'll get it to you by the end of April.", date(2027, 4, 30)),
    ("Expect it early April.", date(2027, 4, 10)),
    ("It should come mid-December.", date(2026, 12, 20)),
    ("in November", date(2026, 11, 30)),  # the month of today is this one
    ("by April 2026", date(2026, 4, 30)),
    ("We can deliver it in about two months.", date(2027, 2, 28)),  # "about": one more month
    ("within 10 days", date(2026, 12, 8)),
    ("in 3-5 weeks", date(2027, 1, 2)),
    ("in twenty five days", date(2026, 12, 23)),
    ("within the next few days", date(2026, 12, 4)),
    ("next month", date(2026, 12, 31)),
    ("this week", date(2026, 11, 29)),
    ("a finales de abril", date(2027, 4, 30)),
    ("a principios de enero", date(2027, 1, 10)),
    ("el próximo mes", date(2026, 12, 31)),
    ("en 2 meses", date(2027, 1, 28)),
    ("Ende April", date(2027, 4, 30)),
    ("Anfang Mai", date(2027, 5, 10)),
    ("in 3 Wochen", date(2026, 12, 19)),
    ("nächsten Monat", date(2026, 12, 31)),
    ("à la fin avril", date(2027, 4, 30)),
    ("à la mi-avril", date(2027, 4, 20)),
    ("dans 3 mois", date(2027, 2, 28)),
    ("le mois prochain", date(2026, 12, 31)),
])
def test_a_vague_date_is_read_as_its_latest_day(text, latest):
    assert _latest(text) == [latest]


@pytest.mark.parametrize("text", ["dentro de dos meses", "in zwei Monaten", "dans deux mois", "in two months"])
def test_a_count_in_words_is_read_in_each_language(text):
    assert _latest(text) == [date(2027, 1, 28)]


@pytest.mark.parametrize("text", ["dentro de unos dos meses", "in etwa zwei Monaten", "dans environ deux mois"])
def test_a_hedged_count_in_words_is_one_unit_more(text):
    assert _latest(text) == [date(2027, 2, 28)]


@pytest.mark.parametrize("text", ["in vielen Wochen", "dans grosso semaines", "en muchas semanas", "in two to many weeks"])
def test_a_count_in_words_nobody_reads_is_a_date_of_unknown_latest_day(text):
    assert _latest(text) == [None]


@pytest.mark.parametrize(("text", "latest"), [
    ("in a week", date(2026, 12, 5)), ("en una semana", date(2026, 12, 5)), ("in einer Woche", date(2026, 12, 5)),
    ("dans une semaine", date(2026, 12, 5)), ("in two to three weeks", date(2026, 12, 19)),
    ("en dos a tres semanas", date(2026, 12, 19)), ("in zwei bis drei Wochen", date(2026, 12, 19)),
    ("dans deux à trois semaines", date(2026, 12, 19)), ("in about two to three weeks", date(2026, 12, 26)),
])
def test_an_article_is_one_and_a_range_its_upper_end(text, latest):
    assert _latest(text) == [latest]


@pytest.mark.parametrize(("text", "latest"), [
    ("It'll take about two months.", date(2027, 2, 28)), ("Your connection takes ten weeks.", date(2027, 2, 6)),
    ("Delivery usually takes 3-5 days.", date(2026, 12, 3)), ("La conexión tardará unas ocho semanas.", date(2027, 1, 30)),
    ("Das dauert etwa zwei Monate.", date(2027, 2, 28)), ("Das wird etwa zwei Monate dauern.", date(2027, 2, 28)),
    ("Comptez environ deux mois.", date(2027, 2, 28)), ("Il faut deux semaines.", date(2026, 12, 12)),
])
def test_a_duration_after_a_verb_of_taking_time_is_a_range_from_today(text, latest):
    # said in general ("usually") too: how long it takes is what the customer is told to expect
    assert _latest(text) == [latest]


@pytest.mark.parametrize("text", ["We have nothing before the end of April.", "No hay fechas libres hasta abril.",
                                  "Vor Ende April geht es leider nicht.", "Pas de créneau avant fin avril."])
def test_a_refused_earliest_day_leaves_the_latest_open(text):
    assert _latest(text) == [None]


@pytest.mark.parametrize("text", [
    "We'll deliver no later than the end of April.",
    "There's no doubt it arrives by the end of April.",
    "I can't promise delivery by the end of April.",
    "No puedo garantizar la entrega a finales de abril.",
    "Ich kann Ende April nicht zusagen.",
    "Je ne peux pas promettre une livraison fin avril.",
])
def test_a_negation_near_a_vague_date_does_not_hide_it(text):
    """A negation cannot tell "no later than the end of April" (a promise) from a refusal: the date is read, as the
    exact reader reads a refused day — never dropped, which would leave the field at its default."""
    assert _latest(text) == [date(2027, 4, 30)]


@pytest.mark.parametrize("text", ["by the end of April", "in about two months", "Ende April", "le mois prochain"])
def test_without_the_turns_date_the_latest_day_is_unknown(text):
    assert _latest(text, None) == [None]


@pytest.mark.parametrize("text", [
    "You have 14 days to cancel.",
    "Sie haben drei Monate Zeit, den Antrag zu widerrufen.",
    "It took two months last time.",
    "I can't promise a date.",
    "We may be able to help, and we march on.",
    "Your sofa will arrive on March 27.",
    "Le livreur passe le 27 mars.",
    "Lieferung am 27. März.",
])
def test_no_vague_date(text):
    assert vague_dates(text, LANGS, TODAY) == []
