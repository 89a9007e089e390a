"""A free-text slot takes only its value, and a slot a pattern reads takes only what the pattern matches. Found by the
car-rental desk a newcomer wrote (session 12, tests/data/newcomer_carrental): "C'est RK204518" gave the booking
reference and filled the pick-up time (a string read by a pattern) with "C'est", so the time was never asked; and
"RK204518, surname Martin, card ending 4242" checked the surname "surname Martin", so the true driver was refused."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_carrental"
AGENT, TOOLS = (DESK / "agent.yaml").read_text(), (DESK / "tools.py").read_text()


def test_grammar_beside_a_reference_fills_no_patterned_slot(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Je voudrais modifier ma réservation", "expect": {"scenario": "change_booking"}},
        {"user": "C'est RK204518", "expect": {"tool_calls": ["find_booking"], "response_contains": "quel jour"}},
        {"user": "le 3 mars", "expect": {"response_contains": "quelle heure", "response_not_contains": "agence"}},
    ])


def test_a_slot_read_by_a_pattern_never_takes_the_whole_message(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I need to change my booking RK204518"},
        {"user": "next Friday", "expect": {"response_contains": "what time"}},
        {"user": "sometime around lunch", "expect": {"response_not_contains": "which branch", "step": "ask_details"}},
        {"user": "at 12:30", "expect": {"response_contains": "which branch"}},
    ])


def test_the_words_naming_a_free_text_slot_are_not_its_value(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Why was I charged a cleaning fee?", "expect": {"scenario": "verify_identity"}},
        {"user": "RK204518, surname Martin, card ending 4242",
         "expect": {"tool_calls": {"verify_identity": {"booking_ref": "RK204518", "driver_surname": "Martin",
                                                       "card_last4": "4242"}},
                    "response_contains": "80", "step": "confirm"}},
    ])


def test_a_free_text_answer_loses_its_label_too(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "You charged me for fuel but I returned it full"},
        {"user": "RK204518"},
        {"user": "my surname is Martin", "expect": {"response_contains": "last 4 digits"}},
        {"user": "4242", "expect": {"tool_calls": {"verify_identity": {"driver_surname": "Martin"}}, "step": "confirm"}},
    ])


def test_a_surname_given_alone_is_kept_whole(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "You charged me for fuel but I returned it full"},
        {"user": "RK415530"},
        {"user": "García"},
        {"user": "0005", "expect": {"tool_calls": {"verify_identity": {"driver_surname": "García"}}}},
    ])
