"""Counts and amounts a Spanish, German or French customer spells out are read as their figures (text2num), for the
slot readers that read digits; a lone "one" stays a word (it is an article as often as a count), as in English."""

from __future__ import annotations

import pytest

from focal.sensing import locale_reading
from focal.text.number_words import spelled_as_digits, spelled_counts


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
    assert locale_reading.figures_as_read(text, lang) == amount


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
    assert spelled_counts(text, ["hours", "night", "minutes"], answering) == expected
