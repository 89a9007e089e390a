"""A guest answering the date prompt with a day named relative to today, in each of four languages, through the real
pipeline: the confirmation names the date counted from the turn's clock (deps.clock, held by the test on a Saturday),
never the wall clock; "next Friday" said on a Tuesday may be either Friday and is asked again
(focal.sensing.relative_dates)."""

from __future__ import annotations

import re
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.text.shown_values import shown_date
from focal.wiring import local_deps

SPANISH = Path(__file__).with_name("test_spanish_date_answer.py").read_text(encoding="utf-8")
AGENT = re.search(r'AGENT = """(.*?)"""', SPANISH, re.S).group(1).replace("languages: [en, es]", "languages: [en, es, de, fr]")
OPENING = {"en": "I need to change my arrival date", "es": "Necesito cambiar mi fecha de llegada",
           "de": "Ich muss mein Ankunftsdatum ändern", "fr": "Je dois changer ma date d'arrivée"}


def _clock_on(weekday: int) -> float:
    """The turn's clock: noon of the next `weekday` (0 = Monday) after today, at least a day ahead of the machine's
    (the stores expire by real time)."""
    today = datetime.now(UTC).date() + timedelta(days=1)
    day = today + timedelta(days=(weekday - today.weekday()) % 7)
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC).timestamp()


def _answer(tmp_path: Path, lang: str, answer: str, weekday: int) -> tuple[str, date]:
    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    deps = local_deps(tmp_path / "agent.yaml", tmp_path / "focal.db")
    now = _clock_on(weekday)
    assert now > time.time()
    deps.clock = lambda: now
    runner = LocalRunner(deps)
    replies = [runner.turn(TurnRequest(tenant_id="t1", agent_id="inn", session_id="s1", customer_id="c-1",
                                       turn_id=f"t{n}", message=message)).response
               for n, message in enumerate([OPENING[lang], answer])]
    return replies[1], datetime.fromtimestamp(now, UTC).date()


@pytest.mark.parametrize(("lang", "answer", "days"), [
    ("es", "pasado mañana", 2), ("fr", "après-demain", 2), ("de", "übermorgen", 2),
    ("fr", "vendredi prochain", 6), ("de", "nächsten Freitag", 6), ("es", "el próximo viernes", 6), ("en", "next Friday", 6),
    ("en", "this Friday", 6), ("en", "in two weeks", 14), ("de", "in zwei Wochen", 14), ("fr", "dans deux semaines", 14),
])
def test_a_day_named_relative_to_today_is_confirmed_from_the_turns_clock(tmp_path, lang, answer, days):
    reply, today = _answer(tmp_path, lang, answer, weekday=5)  # a Saturday
    day = today + timedelta(days=days)
    assert (day.isoformat() if lang == "en" else shown_date(day, lang)) in reply, reply  # as the language writes it


@pytest.mark.parametrize(("lang", "answer"), [("fr", "vendredi prochain"), ("de", "nächsten Freitag"),
                                              ("es", "el próximo viernes"), ("en", "next Friday")])
def test_next_friday_said_on_a_tuesday_is_asked_again_never_guessed(tmp_path, lang, answer):
    reply, today = _answer(tmp_path, lang, answer, weekday=1)
    assert not re.search(r"\d{4}", reply), reply  # no date confirmed, in any form
    assert reply.endswith(("What new arrival date would you like?", "¿Qué nueva fecha de llegada desea?")), reply
