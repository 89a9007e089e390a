"""Dates and figures as Spanish, German and French customers write them (focal.sensing.locale_reading), read by the
field readers (focal.sensing.extraction) in the turn's language, never from the wall clock."""

from __future__ import annotations

import sys
from datetime import date

import pytest

from focal.models.agent import ProfileFieldDefinition
from focal.sensing import date_words, relative_dates
from focal.sensing.extraction import read_value
from focal.sensing.locale_figures import figures_as_read
from focal.sensing.locale_reading import DateReaderUnavailable, dates_as_read
from focal.sensing.locale_words_cldr import TABLE, derive
from focal.sensing.reading_language import reading_in

TODAY = date(2025, 3, 1)
WHEN = ProfileFieldDefinition(field_name="when", field_type="date")
AMOUNT = ProfileFieldDefinition(field_name="amount", field_type="money")
COUNT = ProfileFieldDefinition(field_name="count", field_type="number")


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("es", "Quiero llegar el 3 de mayo", "2025-05-03"),
    ("de", "am 3. Mai 2026 bitte", "2026-05-03"),
    ("fr", "le 3 mai", "2025-05-03"),
    ("es", "el 12/05/2025", "2025-05-12"),        # day first, as CLDR writes Spanish dates
    ("de", "am 04.03.2025", "2025-03-04"),
    ("es", "mañana", "2025-03-02"), ("de", "übermorgen", "2025-03-03"), ("fr", "demain", "2025-03-02"),
])
def test_a_date_in_each_language_is_read(lang, text, expected):
    with reading_in(lang):
        assert read_value(WHEN, text, choosing=True, answering=True, today=TODAY) == expected


def test_a_date_named_relative_to_today_needs_the_turns_date_and_a_duration_is_no_date():
    with reading_in("es"):
        assert read_value(WHEN, "mañana", choosing=True, answering=True, today=None) is None
        assert read_value(WHEN, "mañana", choosing=True, answering=False, today=TODAY) is None
        assert read_value(WHEN, "2 semanas", choosing=True, answering=True, today=TODAY) is None
    assert dates_as_read("el 3 de mayo", TODAY, True, "en") == "el 3 de mayo"  # English: as written


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("es", "Me cobraron 1.234,56 €", 1234.56),
    ("de", "Ich habe 1.234,56 Euro bezahlt", 1234.56),
    ("fr", "1 234,56 €", 1234.56),
    ("fr", "1\u202f234,56 €", 1234.56),
    ("es", "50 dólares", 50.0),
    ("de", "20 Pfund", 20.0),
])
def test_an_amount_in_each_language_is_read(lang, text, expected):
    with reading_in(lang):
        assert read_value(AMOUNT, text, choosing=True) == pytest.approx(expected)


def test_figures_in_the_languages_style_and_nothing_else():
    assert figures_as_read("12,5", "fr") == "12.5"
    assert figures_as_read("LC204518 y B30117", "es") == "LC204518 y B30117"
    assert figures_as_read("1,234.56", "de") == "1,234.56"  # not German: left for the English readers
    with reading_in("de"):
        assert read_value(COUNT, "2,5", choosing=True, answering=True) == pytest.approx(2.5)


def test_the_shipped_locale_words_are_cldrs():
    pytest.importorskip("babel")
    import json

    assert json.loads(TABLE.read_text(encoding="utf-8")) == derive()


def _forget_library_words() -> None:
    for cached in (date_words._info, date_words.filler, date_words.vocabulary, date_words._weekday_names,
                   date_words._month_names, relative_dates._phrases, relative_dates._counts):
        cached.cache_clear()


@pytest.fixture
def no_library_words_kept():
    """The library's words read by earlier tests are forgotten before (else they stand in for a missing library,
    and the outcome depends on which tests ran first) and after (nothing read without it is kept)."""
    _forget_library_words()
    yield
    _forget_library_words()


@pytest.mark.parametrize(("lang", "text"), [("es", "Quiero llegar el 3 de mayo"), ("de", "übermorgen bitte"),
                                            ("fr", "le 5 juin")])
@pytest.mark.usefixtures("no_library_words_kept")
def test_without_dateparser_a_date_in_another_language_is_unknown_never_read_as_english(monkeypatch, lang, text):
    for name in [m for m in sys.modules if m == "dateparser" or m.startswith("dateparser.")] or ["dateparser"]:
        monkeypatch.setitem(sys.modules, name, None)  # importing it raises ImportError, as where it is not installed
    with reading_in(lang), pytest.raises(DateReaderUnavailable) as caught:
        read_value(WHEN, text, choosing=True, answering=True, today=TODAY)
    assert caught.value.lang == lang and "dateparser" in str(caught.value)
    with reading_in("en"):  # English needs no dateparser
        assert read_value(WHEN, "May 3", choosing=True, answering=True, today=TODAY) == "2025-05-03"


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("en", "12,345.5 kWh", 12345.5),  # English groups are read too, not the first digits
    ("fr", "12 345,5 kWh", 12345.5),
    ("de", "12.345 kWh", 12345),
    ("de", "2,5", 2.5),  # a decimal figure is no date
    ("fr", "12,345.5 kWh", None),  # a figure the language does not write so is unknown, never 12
    ("de", "12 345,5 kWh", None),
    ("en", "12 345", None),
    ("fr", "le 3 mars", None),  # the day of a date is no count
    ("de", "am 3. März", None),
])
def test_a_number_is_read_whole_in_the_turns_style_or_not_at_all(lang, text, expected):
    with reading_in(lang):
        got = read_value(COUNT, text, choosing=True, answering=True)
    assert got == (pytest.approx(expected) if expected is not None else None)
