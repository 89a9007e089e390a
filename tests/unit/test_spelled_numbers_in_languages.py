"""Counts and amounts a Spanish, German or French customer spells out are read as their figures (text2num), for the
slot readers that read digits; a lone "one" stays a word (it is an article as often as a count), as in English."""

from __future__ import annotations

import pytest

from focal.sensing import locale_figures
from focal.sensing.count_words import counts_as_digits
from focal.text.number_words import spelled_as_digits


@pytest.mark.parametrize(("lang", "text", "read"), [
    ("fr", "trois semaines", "3 semaines"), ("es", "dos semanas, por favor", "2 semanas, por favor"),
    ("de", "zwei Wochen bitte", "2 Wochen bitte"), ("de", "fünfundzwanzig Euro", "25 Euro"),
    ("fr", "quatre-vingt-dix jours", "90 jours"), ("es", "doscientos cincuenta dólares", "250 dólares"),
])
def test_spelled_numbers_become_figures(lang, text, read):
    assert spelled_as_digits(text, lang) == read


@pytest.mark.parametrize(("lang", "text"), [("fr", "Je voudrais prolonger un livre"), ("es", "quiero renovar un libro"),
                                            ("de", "ich möchte ein Buch verlängern"), ("fr", "j'ai perdu une carte"),
                                            ("en", "two weeks"), ("fr", "LC204518, le livre B30117")])
def test_articles_english_and_ids_are_left_alone(lang, text):
    assert spelled_as_digits(text, lang) == text


@pytest.mark.parametrize(("lang", "text", "amount"), [("es", "quince euros", "EUR 15"), ("de", "zwanzig Euro", "EUR 20"),
                                                      ("fr", "cinquante euros", "EUR 50")])
def test_an_amount_in_words_is_read_with_its_currency(lang, text, amount):
    assert locale_figures.figures_as_read(text, lang) == amount


@pytest.mark.parametrize(("text", "answering", "expected"), [
    ("my flight was delayed five hours", False, "my flight was delayed 5 hours"),
    ("twenty-two nights in Rome", False, "22 nights in Rome"),
    ("a hundred and ten minutes late", False, "110 minutes late"),
    ("one hour late", False, "1 hour late"),
    ("two adults and a dog", False, "two adults and a dog"),  # no count of what the field counts
    ("twelve fifty hours", False, "twelve fifty hours"),  # 12.50 or 1250: no one number
    ("two hours, no make that twenty", False, "two hours, no make that twenty"),  # which one counts is not clear
    ("one bag, delayed five hours", False, "one bag, delayed 5 hours"),  # "one" beside it is an article as often
    ("five", False, "five"),  # a bare number answers something else: only the count's own prompt reads it
    ("five", True, "5"),
    ("one.", True, "1"),
])
def test_english_counts_in_words_are_read_as_digits(text, answering, expected):
    assert counts_as_digits(text, ["hours", "night", "minutes"], answering) == expected


@pytest.mark.parametrize(("lang", "text", "answering", "expected"), [
    ("es", "dos gigas por favor", True, "2 gigas por favor"),  # only a count, answering its prompt
    ("de", "zwei Stunden Verspätung", False, "2 Stunden Verspätung"),  # counts the field's unit
    ("fr", "un retard de cinq heures", False, "un retard de 5 heures"),  # "un" beside it is an article
    ("es", "treinta y dos horas", False, "32 horas"),
    ("fr", "vingt et un jours", True, "21 jours"),
    ("de", "zwanzig", True, "20"),
    ("es", "dos horas, no, mejor veinte", True, "dos horas, no, mejor veinte"),  # which one counts is not clear
    ("de", "zwei Erwachsene und ein Hund", True, "zwei Erwachsene und ein Hund"),  # more than a count
    ("fr", "cinq", False, "cinq"),  # a bare number answers something else
])
def test_spanish_german_and_french_counts_follow_the_same_rule(lang, text, answering, expected):
    assert counts_as_digits(text, ["hours", "Stunden", "heures", "horas", "jours"], answering, lang) == expected
