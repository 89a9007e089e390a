"""Days named relative to today in CLDR's phrases, read whole in each language as the English reader reads the same
phrase (focal.sensing.relative_dates): "pasado mañana" is the day after tomorrow, "vendredi prochain" / "nächsten
Freitag" / "el próximo viernes" / "next Friday" the next Friday when only one Friday can be meant (and unknown when it
may be this week's or the next), "in zwei Wochen" two weeks on. The turn's date is held here, never the wall clock."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from focal.models.agent import ProfileFieldDefinition
from focal.sensing.extraction import read_value
from focal.sensing.reading_language import reading_in

WHEN = ProfileFieldDefinition(field_name="arrival_date", field_type="date")
SATURDAY = date(2026, 11, 28)
TUESDAY = date(2026, 12, 1)
NEXT_FRIDAY = {"en": "next Friday", "es": "el próximo viernes", "de": "nächsten Freitag", "fr": "vendredi prochain"}


def _answer(lang: str, text: str, today: date | None, answering: bool = True) -> str | None:
    with reading_in(lang):
        return read_value(WHEN, text, choosing=True, answering=answering, today=today)


@pytest.mark.parametrize(("lang", "text"), [
    ("es", "pasado mañana"), ("es", "Pasado mañana, por favor"), ("de", "übermorgen"), ("fr", "après-demain"),
    ("en", "the day after tomorrow"),
])
def test_the_day_after_tomorrow_in_each_language(lang, text):
    assert _answer(lang, text, SATURDAY) == "2026-11-30"
    assert _answer(lang, text, TUESDAY) == "2026-12-03"


@pytest.mark.parametrize("lang", sorted(NEXT_FRIDAY))
def test_next_friday_said_when_only_one_friday_can_be_meant(lang):
    assert _answer(lang, NEXT_FRIDAY[lang], SATURDAY) == "2026-12-04"
    assert _answer(lang, NEXT_FRIDAY[lang], date(2026, 11, 27)) == "2026-12-04"  # said on a Friday: a week on


@pytest.mark.parametrize("lang", sorted(NEXT_FRIDAY))
def test_next_friday_said_on_a_tuesday_may_be_this_weeks_or_the_next_and_is_asked_again(lang):
    assert _answer(lang, NEXT_FRIDAY[lang], TUESDAY) is None  # never the library's weekday alone (the 4th)


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("en", "this Friday", "2026-12-04"), ("es", "este viernes", "2026-12-04"), ("de", "diesen Freitag", "2026-12-04"),
    ("fr", "ce vendredi", "2026-12-04"),
    ("en", "last Friday", "2026-11-27"), ("es", "el viernes pasado", "2026-11-27"), ("de", "letzten Freitag", "2026-11-27"),
    ("fr", "vendredi dernier", "2026-11-27"),
    ("en", "in two weeks", "2026-12-15"), ("de", "in zwei Wochen", "2026-12-15"), ("fr", "dans deux semaines", "2026-12-15"),
    ("es", "dentro de 2 semanas", "2026-12-15"), ("fr", "dans 3 jours", "2026-12-04"), ("es", "dentro de una semana", "2026-12-08"),
])
def test_this_last_and_a_count_of_weeks_in_each_language(lang, text, expected):
    assert _answer(lang, text, TUESDAY) == expected


def test_a_count_the_library_cannot_read_is_unknown_never_a_guess():
    assert _answer("es", "dentro de dos semanas", TUESDAY) is None  # no Spanish count words in dateparser's data
    assert _answer("de", "in ein paar Wochen", TUESDAY) is None


@pytest.mark.parametrize("lang", sorted(NEXT_FRIDAY))
def test_read_only_from_the_turns_date_and_only_answering_the_dates_prompt(lang):
    assert _answer(lang, NEXT_FRIDAY[lang], None) is None
    assert _answer(lang, NEXT_FRIDAY[lang], SATURDAY, answering=False) is None


def test_the_date_moves_with_the_turns_clock_not_the_wall_clock():
    for days in range(7):
        today = SATURDAY + timedelta(days=7 * 10 + days)
        assert _answer("es", "pasado mañana", today) == (today + timedelta(days=2)).isoformat()
