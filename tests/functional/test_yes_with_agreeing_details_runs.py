"""A yes whose details agree with what the confirmation showed runs the action, like a plain yes. Found by a
newcomer's energy desk (session 11, tests/data/newcomer_energy):
- "yes, 13000 is right, go ahead" to "I'll submit a reading of 13000 … Shall I go ahead?" waited for a person's
  approval: the yes was read as agreeing, but the gate graded it as a yes with no recorded reading (0.9), and the
  restated 13000 as a new value — 0.846 < 0.85;
- "ja, genau so, Gartenweg 12 stimmt" to the move "… nach Gartenweg 12, Potsdam am 4. Dezember 2026 …" moved the
  date to 12 December: the 12 of the address was read as a new day."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_energy"
AGENT = (DESK / "agent.yaml").read_text()
TOOLS = (DESK / "tools.py").read_text()
READING = [{"user": "I'd like to give you my gas reading"}, {"user": "EA204518"}, {"user": "13000"},
           {"user": "21 November 2026", "expect": {"step": "confirm"}}]


def test_a_yes_that_repeats_the_value_shown_runs_at_once(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [*READING, {"user": "yes, 13000 is right, go ahead", "expect": {
        "execution_path": "respond", "approval_state": "none",
        "tool_calls": {"submit_meter_reading": {"meter_reading": 13000, "reading_date": "2026-11-21"}}}}])


def test_a_yes_with_another_value_still_runs_nothing(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [*READING, {"user": "yes, but it's 13100", "expect": {
        "tool_calls": [], "step": "confirm", "response_contains": "13100"}}])


MOVE = [{"user": "Ich ziehe um"}, {"user": "EA204518"}, {"user": "Hauptstraße 5, Berlin"},
        {"user": "Gartenweg 12, Potsdam"}, {"user": "am 4. Dezember 2026", "expect": {"step": "confirm"}}]


def test_a_yes_that_repeats_the_street_of_an_address_keeps_the_date(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [*MOVE, {"user": "ja, genau so, Gartenweg 12 stimmt", "expect": {
        "tool_calls": {"register_move": {"new_address": "Gartenweg 12, Potsdam", "move_date": "2026-12-04"}}}}])


def test_a_yes_with_another_street_number_runs_nothing(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [*MOVE, {"user": "ja, aber Gartenweg 14, Potsdam", "expect": {"tool_calls": []}}])
