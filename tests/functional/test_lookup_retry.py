"""The id the customer gives right after "I couldn't find X" corrects X: the flow that ended runs again from the step
that collects it, its look-up runs with the new value (on with the flow when found, the not-found answer again when
not), read by the flow's own slot reading in any language; anything else is handled as usual, and only in the turn
right after. Both ways a flow ends on a look-up: the engine's own not-found answer and the agent's own branch."""

from __future__ import annotations

from pathlib import Path

import yaml
from written_agent import passes

from focal.cli.conversation_tests import format_report, run_suite
from test_lookup_not_found import AGENT, TOOLS

ROOT = Path(__file__).resolve().parents[2]
START = {"user": "Send my parcel to a pickup point", "expect": {"step": "ask_parcel"}}
MISSED = {"user": "ZZ9999", "expect": {"scenario": None, "response_contains": "I couldn't find parcel number ZZ9999"}}


def test_the_id_given_after_not_found_runs_the_lookup_again_and_goes_on(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [
        START, MISSED,
        {"user": "PX1001", "expect": {"scenario": "pickup", "step": "confirm", "tool_calls": ["find_parcel"],
                                      "response_contains": "a box of books"}},
        {"user": "yes", "expect": {"tool_calls": ["send_to_pickup"]}},
    ], "retry found")


def test_a_second_unknown_id_gets_the_not_found_answer_again(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [
        START, MISSED,
        {"user": "QQ1234", "expect": {"tool_calls": ["find_parcel"], "scenario": None,
                                      "response_contains": "I couldn't find parcel number QQ1234"}},
        {"user": "PX1001", "expect": {"step": "confirm", "tool_calls": ["find_parcel"]}},
    ], "retry not found again")


def test_the_correction_is_read_only_in_the_turn_right_after(tmp_path):
    passes(tmp_path, AGENT, TOOLS, [
        START, MISSED,
        {"user": "thanks", "expect": {"tool_calls": []}},
        {"user": "PX1001", "expect": {"scenario": None, "tool_calls": []}},
    ], "retry expires")


def _example_passes(tmp_path: Path, example: str, customer: str, turns: list[dict]) -> None:
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": example, "customer_id": customer, "turns": turns}]}))
    report = run_suite(ROOT / "examples" / example / "agent.yaml", suite)
    assert report.conversations and report.passed, "\n" + format_report(report)


def test_airline_reservation_corrected_after_not_found(tmp_path):
    _example_passes(tmp_path, "airline", "mia_li_3668", [
        {"user": "I need to cancel reservation ZZZ999, my user id is mia_li_3668, change of plan",
         "expect": {"response_contains": "couldn't find reservation ZZZ999"}},
        {"user": "NO6JO3", "expect": {"scenario": "cancel_reservation", "tool_calls": ["get_reservation_details"],
                                      "response_not_contains": "couldn't find"}},
    ])


def test_retail_order_corrected_after_not_found(tmp_path):
    _example_passes(tmp_path, "retail", "c-100", [
        {"user": "Please refund order Z9999", "expect": {"response_contains": "couldn't find order Z9999"}},
        {"user": "A1001", "expect": {"scenario": "refund", "tool_calls": ["lookup_order"],
                                     "response_not_contains": "couldn't find"}},
    ])


def test_the_correction_is_read_in_other_languages(tmp_path):
    for text in ("Es el PX1001", "Es ist PX1001", "C'est PX1001"):
        passes(tmp_path, AGENT, TOOLS, [
            START, MISSED,
            {"user": text, "expect": {"step": "confirm", "tool_calls": ["find_parcel"]}},
        ], f"retry {text}")
