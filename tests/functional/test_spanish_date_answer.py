"""A Spanish guest answering "pasado mañana" at a date prompt, through the real pipeline: the confirmation names the
day after tomorrow of the turn's clock (deps.clock), or the guest is asked again — never tomorrow, and the change is
never confirmed for tomorrow."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.text.shown_values import shown_date
from focal.wiring import local_deps

AGENT = """
id: inn
name: Inn
description: Changes arrival dates.
persona: You change arrival dates.
greeting: Hello, I can change your arrival date.
out_of_scope_message: I can change your arrival date.
languages: [en, es]
profile_field_definitions:
  - {field_name: arrival_date, field_type: date, sources: [message]}
scenarios:
  - id: change
    name: Change the arrival date
    entry_examples: [I need to change my arrival date, Please move my booking to another date]
    entry_step_id: ask
    steps:
      - id: ask
        slots: [{name: arrival_date, type: date, prompt: "What new arrival date would you like?"}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "I'll change the arrival to {arrival_date}. Shall I go ahead?"
        transitions: [{target: done}]
      - {id: done, response_template: "Done: you now arrive on {arrival_date}."}
translations:
  es:
    scenarios:
      change:
        name: Cambiar la fecha de llegada
        entry_examples: [Necesito cambiar mi fecha de llegada, Quiero modificar la fecha de mi reserva]
        steps:
          ask: {slots: {arrival_date: "¿Qué nueva fecha de llegada desea?"}}
          confirm: {confirmation_prompt: "Cambiaré la llegada al {arrival_date}. ¿Sigo adelante?"}
          done: {response_template: "Hecho: llega ahora el {arrival_date}."}
"""


def _conversation(tmp_path: Path, answer: str) -> tuple[list[str], datetime]:
    (tmp_path / "agent.yaml").write_text(AGENT)
    deps = local_deps(tmp_path / "agent.yaml", tmp_path / "focal.db")
    now = time.time() + 36 * 3600  # the turn's clock, ahead of the machine's (the stores expire by real time)
    deps.clock = lambda: now
    runner = LocalRunner(deps)
    results = [runner.turn(TurnRequest(tenant_id="t1", agent_id="inn", session_id="s1", customer_id="c-1",
                                       turn_id=f"t{n}", message=message))
               for n, message in enumerate(["Necesito cambiar mi fecha de llegada", answer, "sí"])]
    return [r.response for r in results], datetime.fromtimestamp(now, UTC)


def test_pasado_manana_is_the_day_after_tomorrow_or_asked_again_never_tomorrow(tmp_path: Path):
    answers, now = _conversation(tmp_path, "pasado mañana, por favor")
    today = now.date()
    assert answers[0] == "¿Qué nueva fecha de llegada desea?"
    right = f"Cambiaré la llegada al {shown_date(today + timedelta(days=2), 'es')}. ¿Sigo adelante?"
    assert answers[1] == right or answers[1].endswith("¿Qué nueva fecha de llegada desea?")  # right, or asked again
    tomorrow = today + timedelta(days=1)
    assert tomorrow.isoformat() not in answers[1] + answers[2]
    assert shown_date(tomorrow, "es") not in answers[1] + answers[2]


def test_a_bare_pasado_manana_never_confirms_or_changes_tomorrow(tmp_path: Path):
    answers, now = _conversation(tmp_path, "pasado mañana")
    tomorrow = now.date() + timedelta(days=1)
    assert all(tomorrow.isoformat() not in answer and shown_date(tomorrow, "es") not in answer for answer in answers)
