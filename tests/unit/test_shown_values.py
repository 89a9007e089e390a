"""Numbers and dates written in the customer's language (focal.text.shown_values) and read back in it."""

from __future__ import annotations

import json
from datetime import date

import pytest

from focal.sensing.locale_figures import locale_decimal
from focal.sensing.reply_words import WORDS
from focal.text.showing_cldr import TABLE, derive
from focal.text.shown_values import as_date, long_dates_as_iso, showing_in, shown_date, shown_decimal
from focal.text.views import check_view
from focal.variables import render


def test_the_shipped_table_is_what_cldr_says():
    assert json.loads(TABLE.read_text(encoding="utf-8")) == derive()


@pytest.mark.parametrize(("lang", "number", "day"), [
    ("fr", "12\u202f345,50", "3 mars 2027"),
    ("de", "12.345,50", "3. März 2027"),
    ("es", "12.345,50", "3 de marzo de 2027"),
])
def test_render_writes_the_turns_language(lang, number, day):
    with showing_in(lang):
        assert render("{n} € / {d}", {"n": 12345.5, "d": "2027-03-03"}) == f"{number} € / {day}"


@pytest.mark.parametrize("lang", ["fr", "de", "es"])
def test_a_yes_no_value_is_written_in_the_turns_language_and_read_back_as_that_answer(lang):
    with showing_in(lang):
        yes, no = render("{y}", {"y": True}), render("{n}", {"n": False})
    assert (yes, no) != ("yes", "no")
    assert yes in WORDS[lang]["affirm"] and no in WORDS[lang]["deny"]


def test_render_in_english_is_unchanged():
    for lang in (None, "en", "it"):  # none, English, a language with no style here
        with showing_in(lang):
            assert render("{n} / {d} / {i} / {b}", {"n": 12345.5, "d": "2027-03-03", "i": 12345, "b": True}) == (
                "12,345.50 / 2027-03-03 / 12345 / yes")


@pytest.mark.parametrize("lang", ["fr", "de", "es"])
@pytest.mark.parametrize("value", [0.5, 7.0, 999.99, 1234.5, 12345.5, 1234567.25])
def test_a_number_written_in_a_language_is_read_back_in_it(lang, value):
    assert float(locale_decimal(check_view(shown_decimal(value, lang)), lang) or -1) == value


@pytest.mark.parametrize("lang", ["fr", "de", "es"])
@pytest.mark.parametrize("day", [date(2027, 3, 3), date(2026, 12, 31), date(2028, 2, 29), date(2027, 8, 1)])
def test_a_date_written_in_a_language_is_read_back_as_the_same_date(lang, day):
    assert long_dates_as_iso(check_view(f"le {shown_date(day, lang)}."), [lang]) == f"le {day.isoformat()}."


def test_only_a_whole_iso_date_is_a_date():
    assert as_date("2027-03-03") == date(2027, 3, 3)
    assert as_date("2027-02-30") is None and as_date("ref 2027-03-03") is None and as_date(20270303) is None
