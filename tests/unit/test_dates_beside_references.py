"""A date in Spanish, German or French is read whole beside references and times of day (focal.sensing.locale_reading):
a member number, a postcode or "18 Uhr" is no part of it, and "18 Uhr" is never the 18th."""

from __future__ import annotations

from datetime import date

import pytest

from focal.sensing import locale_reading
from focal.sensing.dates import read_dates
from focal.sensing.reading_language import reading_in

TODAY = date(2026, 11, 29)  # a Sunday: next Tuesday is 2026-12-01


@pytest.mark.parametrize(("lang", "text", "answering", "dates"), [
    ("fr", "GM550017, 23 novembre 1978, 69003", False, ["1978-11-23"]),
    ("de", "GM318802, 1. Juli 1985, 10115", False, ["1985-07-01"]),
    ("fr", "23 novembre 1978, 69003", False, ["1978-11-23"]),
    ("de", "am nächsten Dienstag, 18 Uhr", True, ["2026-12-01"]),
    ("de", "nächsten Dienstag um 18 Uhr", True, ["2026-12-01"]),
    ("fr", "mardi prochain à 18h", True, ["2026-12-01"]),
    ("es", "el martes a las 18:00", True, ["2026-12-01"]),
])
def test_the_date_is_read_whole_and_alone(lang: str, text: str, answering: bool, dates: list[str]):
    with reading_in(lang):
        read = locale_reading.dates_as_read(text, TODAY, answering)
    assert [iso for _, _, iso in read_dates(read, TODAY, answering) or []] == dates

