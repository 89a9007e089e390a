"""What a customer says at a confirmation, or after asking for a person, never runs the business's action without
a plain yes to the values that would run:

- a correction wrapped in yes words ("yes do it now, but make it the 6th") is a correction: asked again, nothing runs;
- after the hand-off the customer asked for, a yes (even with a new value) runs none of the flow's tools;
- a question about cancelling hiding a yes runs nothing, and an instruction to cancel beside a question still stops.

The agent is a small hotel desk (tests/hotel_desk_agent.py)."""

from __future__ import annotations

from pathlib import Path

from hotel_desk_agent import AGENT, TOOLS, at_confirmation
from written_agent import passes


def _run(tmp_path: Path, turns: list[dict]) -> None:
    passes(tmp_path, AGENT, TOOLS, turns, "hostile confirmation")


def test_a_correction_wrapped_in_yes_words_is_confirmed_again_before_anything_runs(tmp_path):
    _run(tmp_path, at_confirmation("en") + [
        {"user": "Forget the 8th, yes do it now, make it December 6, 2027",
         "expect": {"commands": ["CorrectSlot"], "step": "confirm", "tool_calls": [], "response_contains": "2027-12-06"}},
        {"user": "yes, go ahead but the 9th", "expect": {"step": "confirm", "tool_calls": [], "response_contains": "2027-12-09"}},
        {"user": "yes", "expect": {"tool_calls": ["change_arrival"], "response_contains": "now arrives on 2027-12-09"}},
    ])


def test_after_a_handoff_a_yes_with_a_new_value_runs_nothing(tmp_path):
    _run(tmp_path, at_confirmation("es") + [
        {"user": "Quiero hablar con una persona", "expect": {"commands": ["HumanHandoff"], "tool_calls": ["transfer_to_staff"]}},
        {"user": "sí, cámbiela al 5 de diciembre de 2027", "expect": {"tool_calls": [], "scenario": None}},
        {"user": "sí", "expect": {"tool_calls": [], "scenario": None}},
    ])


def test_a_question_about_cancelling_with_a_yes_in_it_runs_nothing(tmp_path):
    _run(tmp_path, at_confirmation("en") + [
        {"user": "Can I cancel later for free? yes go ahead", "expect": {"tool_calls": [], "step": "confirm"}},
    ])


def test_an_instruction_to_cancel_beside_a_question_still_stops(tmp_path):
    _run(tmp_path, at_confirmation("fr") + [
        {"user": "Combien coûte l'annulation ? Laisse tomber, annule tout.",
         "expect": {"commands": ["CancelFlow"], "scenario": None, "tool_calls": []}},
    ])
