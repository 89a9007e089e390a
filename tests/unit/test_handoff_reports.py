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
