"""Which flows hand off at once, and how a report in one part of a message ranks their flow first
(focal.sensing.handoff_reports)."""

from __future__ import annotations

from pathlib import Path

from focal.config.loader import load_agent
from focal.models.context import IntentScore
from focal.sensing.handoff_reports import handoff_flows, hands_off_at_once, with_reports

GYM = load_agent(Path(__file__).resolve().parents[1] / "data" / "newcomer_gym" / "agent.yaml")


def _scores(**by_flow: float) -> list[IntentScore]:
    return sorted((IntentScore(scenario_id=k, label=k, score=v) for k, v in by_flow.items()), key=lambda s: -s.score)


def test_only_a_flow_whose_entry_asks_nothing_and_always_escalates_hands_off_at_once():
    assert handoff_flows(GYM) == {"emergency"}
    # the dispute flow escalates too, but only above a limit and after asking: it is a task
    assert not hands_off_at_once(GYM.scenario("dispute"))
    assert not hands_off_at_once(None)


def test_a_part_that_fits_the_hand_off_flow_ranks_it_first_at_the_parts_score():
    notes: list[str] = []
    ranked = with_reports(GYM, _scores(emergency=0.50, freeze=0.10), [_scores(emergency=0.62), _scores(freeze=0.2)], notes)
    assert [(s.scenario_id, s.score) for s in ranked[:2]] == [("emergency", 0.62), ("freeze", 0.10)]
    assert notes and "emergency" in notes[0]


def test_a_part_below_the_entry_threshold_changes_nothing():
    whole = _scores(freeze=0.67, emergency=0.30)
    assert with_reports(GYM, whole, [_scores(emergency=0.45)], []) == whole


def test_a_task_flow_is_never_lifted_by_a_part():
    whole = _scores(emergency=0.20, freeze=0.40)
    assert with_reports(GYM, whole, [_scores(freeze=0.90)], []) == whole


def test_a_part_lifts_the_hand_off_flow_only_where_it_fits_that_part_best():
    whole = _scores(emergency=0.30, freeze=0.20)
    # the part fits a task better than the report: it asks for that task, it reports nothing
    assert with_reports(GYM, whole, [_scores(freeze=0.80, emergency=0.60)], []) == whole


def test_a_whole_message_that_asks_for_another_flow_more_clearly_keeps_its_reading():
    whole = _scores(freeze=0.70, emergency=0.30)
    # a clause alone resembles the report (0.58), but the message asks for the freeze more clearly (0.70)
    assert with_reports(GYM, whole, [_scores(emergency=0.58, freeze=0.05)], []) == whole
    lifted = with_reports(GYM, whole, [_scores(emergency=0.75, freeze=0.05)], [])
    assert [s.scenario_id for s in lifted[:2]] == ["emergency", "freeze"]
