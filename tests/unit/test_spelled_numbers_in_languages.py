"""Counts and amounts a Spanish, German or French customer spells out are read as their figures (text2num), for the
slot readers that read digits; a lone "one" stays a word (it is an article as often as a count), as in English."""

from __future__ import annotations

import pytest

from focal.sensing import locale_reading
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
    assert locale_reading.figures_as_read(text, lang) == amount
