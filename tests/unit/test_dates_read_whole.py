"""A date answer is read whole or not at all, in each declared language (focal.sensing.locale_reading,
focal.sensing.date_words): a date the library read only part of is unknown ("pasado mañana" is never tomorrow), a
weekday the date does not fall on leaves it unknown or finds the date both name ("le vendredi 4"), and a day of
the month alone is its next occurrence from the turn's date. The turn's date is fixed here, never the wall clock."""

from __future__ import annotations

from datetime import date

import pytest

from focal.models.agent import ProfileFieldDefinition
from focal.sensing.extraction import read_value
from focal.sensing.reading_language import reading_in

TODAY = date(2026, 11, 28)  # a Saturday; the 4th of December 2026 is a Friday
WHEN = ProfileFieldDefinition(field_name="arrival_date", field_type="date")


def _answer(lang: str, text: str, today: date = TODAY) -> str | None:
    with reading_in(lang):
        return read_value(WHEN, text, choosing=True, answering=True, today=today)


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "day after tomorrow"), ("es", "mañana no, pasado mañana"), ("de", "Donnerstag, den 4."),
])
def test_a_date_the_library_read_only_part_of_is_unknown_never_the_part(lang, text):
    assert _answer(lang, text) not in ("2026-11-29", "2026-12-03", "2026-12-04") and _answer(lang, text) is None


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("fr", "le vendredi 4", "2026-12-04"), ("es", "el viernes 4", "2026-12-04"), ("en", "Friday the 4th", "2026-12-04"),
    ("de", "Freitag, den 4.", "2026-12-04"),
    ("fr", "le jeudi 4", None), ("es", "el jueves 4", None), ("en", "Wednesday the 4th", None),
    ("de", "Donnerstag, 4. Dezember", None), ("fr", "jeudi 4 décembre", None),
])
def test_a_named_weekday_must_agree_with_the_date(lang, text, expected):
    assert _answer(lang, text) == expected


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "the 5th"), ("en", "5th"), ("en", "on the 5th please"), ("es", "el 5"), ("es", "el día 5"), ("fr", "le 5"),
    ("de", "am 5."), ("de", "den 5."),
])
def test_a_day_of_the_month_alone_is_its_next_occurrence(lang, text):
    assert _answer(lang, text) == "2026-12-05"  # the 5th of November is past
    assert _answer(lang, text, date(2026, 11, 3)) == "2026-11-05"
    assert _answer(lang, text, date(2026, 11, 5)) == "2026-11-05"  # today is included


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "for 3 nights"), ("es", "3 noches"), ("en", "not the 5th"), ("en", "the 45th"), ("fr", "le 5 et le 6"),
])
def test_a_figure_that_is_no_day_alone_is_not_read_as_one(lang, text):
    assert _answer(lang, text) is None


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("en", "December 5", "2026-12-05"), ("es", "5 de diciembre", "2026-12-05"), ("de", "5. Dezember", "2026-12-05"),
    ("fr", "5 décembre", "2026-12-05"), ("es", "quiero llegar el 5 de diciembre por favor", "2026-12-05"),
    ("fr", "vendredi 4 décembre", "2026-12-04"), ("en", "May I come on December 5", "2026-12-05"),
    ("en", "tomorrow", "2026-11-29"), ("es", "mañana", "2026-11-29"), ("fr", "demain", "2026-11-29"),
    ("de", "übermorgen", "2026-11-30"), ("fr", "après-demain", "2026-11-30"), ("en", "the day after tomorrow", "2026-11-30"),
])
def test_ordinary_dates_keep_being_read(lang, text, expected):
    assert _answer(lang, text) == expected


def test_a_day_alone_is_read_only_answering_the_dates_prompt_with_the_turns_date():
    with reading_in("es"):
        assert read_value(WHEN, "el 5", choosing=True, answering=False, today=TODAY) is None
        assert read_value(WHEN, "el 5", choosing=True, answering=True, today=None) is None


@pytest.mark.parametrize(("lang", "text"), [("en", "November 4"), ("es", "el 4 de noviembre"),
                                            ("de", "4. November"), ("fr", "le 4 novembre")])
def test_a_date_without_its_year_lies_on_the_side_the_field_expects(lang, text):
    def read(side: str) -> str | None:
        field = ProfileFieldDefinition(field_name="arrival_date", field_type="date", date_side=side)
        with reading_in(lang):
            return read_value(field, text, choosing=True, answering=True, today=TODAY)

    assert read("future") == "2027-11-04"  # an arrival: never a day already past
    assert read("past") == "2026-11-04"
    assert read("either") == "2026-11-04"  # the nearest, as before


@pytest.mark.parametrize(("lang", "text"), [("en", "the 30th"), ("es", "el 30"), ("fr", "le 30"), ("de", "am 30.")])
def test_a_day_alone_expected_in_the_past_is_the_latest(lang, text):
    field = ProfileFieldDefinition(field_name="incident_date", field_type="date", date_side="past")
    with reading_in(lang):
        assert read_value(field, text, choosing=True, answering=True, today=TODAY) == "2026-10-30"
        assert read_value(WHEN, text, choosing=True, answering=True, today=TODAY) == "2026-11-30"


def test_date_side_is_for_date_fields_only():
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="date_side"):
        ProfileFieldDefinition(field_name="amount", field_type="money", date_side="future")


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("fr", "je voudrais arriver le 5 décembre s'il vous plaît", "2026-12-05"),  # "je" is no Thursday
    ("fr", "le 1er décembre", "2026-12-01"), ("fr", "le 1er", "2026-12-01"), ("es", "el 1º", "2026-12-01"),
    ("fr", "demain matin", "2026-11-29"), ("es", "mañana por la tarde", "2026-11-29"),  # the time of day: same day
    ("de", "am Freitag, den 4. Dezember", "2026-12-04"), ("de", "ich möchte am 5. Dezember ankommen", "2026-12-05"),
    ("es", "el 5 de diciembre, 3 noches", None),  # was read as the 3rd of December
])
def test_words_the_library_misreads_are_not_dates(lang, text, expected):
    assert _answer(lang, text) == expected
