"""A date slot reads what is unambiguous; a day named relative to today needs the turn's date."""

from __future__ import annotations

from datetime import date

import pytest

from focal.models.agent import ProfileFieldDefinition
from focal.sensing.dates import NEAREST_DAYS, read_date
from focal.sensing.extraction import extract

WHEN = ProfileFieldDefinition(field_name="when", field_type="date", sources=["message"])
TODAY = date(2025, 3, 10)  # a Monday


def read(text: str, today: date | None = TODAY, answering: bool = True) -> str | None:
    return extract(WHEN, text, choosing=True, answering=answering, today=today)


@pytest.mark.parametrize(("text", "iso"), [
    ("March 3, 2025", "2025-03-03"), ("2025-03-03", "2025-03-03"), ("the 3rd of March 2025", "2025-03-03"),
    ("3 March 2025", "2025-03-03"), ("Mar. 3rd, 2025 at 5pm", "2025-03-03"),
    ("3/14/2025", "2025-03-14"), ("14/3/2025", "2025-03-14"), ("14.03.2025", "2025-03-14"), ("3/3/2025", "2025-03-03"),
    ("It was 2025-03-03.", "2025-03-03"), ("On 14/3/2025.", "2025-03-14"), ("on 14.03.2025.", "2025-03-14"),
])
def test_full_dates_need_no_clock(text, iso):
    assert read(text, today=None) == iso


@pytest.mark.parametrize("text", ["3/4/2025", "04/03/2025", "February 30, 2025", "2025-02-30", "13/14/2025"])
def test_an_ambiguous_or_impossible_date_is_unknown(text):
    assert read(text) is None


@pytest.mark.parametrize(("text", "iso"), [
    ("March 3", "2025-03-03"), ("the 3rd of March", "2025-03-03"), ("3 March", "2025-03-03"),
    ("December 28", "2024-12-28"),  # the nearest occurrence: last year's, 72 days ago
    ("May 1", "2025-05-01"),  # a date ahead (a booking) is as near
])
def test_a_date_without_a_year_is_its_nearest_occurrence(text, iso):
    assert read(text) == iso
    assert read(text, today=None) is None  # no clock: which year is not known


def test_a_date_without_a_year_far_from_today_is_not_read():
    assert read("September 10") is None  # 184 days either way
    assert abs((date(2025, 7, 8) - TODAY).days) <= NEAREST_DAYS
    assert read("July 8") == "2025-07-08"


@pytest.mark.parametrize(("text", "iso"), [
    ("yesterday", "2025-03-09"), ("last night", "2025-03-09"), ("today", "2025-03-10"), ("this morning", "2025-03-10"),
    ("the day before yesterday", "2025-03-08"), ("3 days ago", "2025-03-07"), ("two days ago", "2025-03-08"),
    ("tomorrow", "2025-03-11"), ("last Tuesday", "2025-03-04"), ("last Monday", "2025-03-03"),
    ("this Friday", "2025-03-14"), ("this coming Wednesday", "2025-03-12"), ("this Monday", "2025-03-10"),
    ("next Monday at 3pm", "2025-03-17"), ("in 3 days", "2025-03-13"), ("in two weeks", "2025-03-24"),
    ("a week from today", "2025-03-17"), ("two weeks from now", "2025-03-24"), ("in a week's time", "2025-03-17"),
])
def test_relative_days_answering_the_date_prompt(text, iso):
    assert read(text) == iso
    assert read(text, today=None) is None  # never the wall clock
    assert read(text, answering=False) is None  # "I want to file it today" is no date for the slot


def test_a_relative_day_and_a_date_that_agree_are_one_date():
    assert read("it happened yesterday, March 9") == "2025-03-09"
    assert read("it happened yesterday, March 8") is None


@pytest.mark.parametrize("text", ["on Tuesday", "next Tuesday", "not yesterday, the day before", "yesterday or today",
                                  "March 3 or March 4", "a few days ago", "last week"])
def test_what_may_be_either_day_is_not_read(text):
    assert read(text) is None


def test_next_weekday_is_read_only_when_both_readings_fall_on_one_day():
    thursday = date(2025, 3, 13)
    assert read("next Monday", today=thursday) == "2025-03-17"  # the coming Monday is in next week anyway
    assert read("next Thursday", today=thursday) == "2025-03-20"
    assert read("next Friday", today=thursday) is None  # tomorrow, or the Friday of next week


def test_a_drafts_mention_is_its_first_date():
    assert read_date("We can do March 5, 2026 or March 6, 2026.") == "2026-03-05"
    assert read_date("on 03/05/2026") is None
    assert read_date("It is set for 2026-03-25.") == "2026-03-25"


def test_a_date_that_cannot_be_placed_makes_the_answer_unknown():
    # without the turn's date, "March 3" and "yesterday" may or may not be the full date beside them
    assert read("March 3, and the policy started 2024-01-01", today=None, answering=False) is None
    assert read("yesterday, so 2025-03-09", today=None) is None
    # not answering the date's prompt, "today" is no date: the full one is read
    assert read("I want to sort it out today. It happened on March 3, 2025.", answering=False) == "2025-03-03"
