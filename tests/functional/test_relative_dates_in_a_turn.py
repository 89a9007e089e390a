"""A date the customer gives relative to today ("yesterday", "March 3") is read against the turn's own
clock (deps.clock), never the machine's wall clock."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

AGENT = """
id: incidents
name: Incidents
description: Records incidents.
persona: You record incidents.
greeting: Hi, I can record an incident.
out_of_scope_message: I can record an incident.
profile_field_definitions:
  - {field_name: incident_date, field_type: date, sources: [message]}
scenarios:
  - id: report
    name: Report an incident
    entry_examples: [I want to report an incident, Something happened to my car, I need to report damage]
    entry_step_id: when
    steps:
      - id: when
        instructions: Ask when it happened.
        slots: [{name: incident_date, type: date, prompt: "On what date did it happen?"}]
        transitions: [{target: noted}]
      - {id: noted, instructions: Confirm., response_template: "Noted: it happened on {incident_date}."}
"""


def test_yesterday_is_the_day_before_the_turns_clock(tmp_path: Path):
    (tmp_path / "agent.yaml").write_text(AGENT)
    deps = local_deps(tmp_path / "agent.yaml", tmp_path / "focal.db")
    # the stores keep what has not expired by the real time, so the turn's clock runs a day and a half ahead of it:
    # its "yesterday" is the machine's today or tomorrow, never the machine's yesterday
    now = time.time() + 36 * 3600
    deps.clock = lambda: now
    runner = LocalRunner(deps)
    answers = []
    for n, message in enumerate(["I want to report an incident", "yesterday"]):
        answers.append(runner.turn(TurnRequest(tenant_id="t1", agent_id="incidents", session_id="s1",
                                               customer_id="c-1", turn_id=f"t{n}", message=message)).response)
    assert answers[0] == "On what date did it happen?"
    yesterday = datetime.fromtimestamp(now, UTC).date() - timedelta(days=1)
    assert answers[1] == f"Noted: it happened on {yesterday.isoformat()}."
