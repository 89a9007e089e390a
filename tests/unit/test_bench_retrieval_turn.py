"""`focal bench retrieval` decides a case's rules as the route does (focal.bench.retrieval_turn.decided): the rule
filter with a flow's resemblance set aside for a message that only asks how things are, the rules that answer
questions set aside inside a flow when the message asks none, no rule for a turn the sensor ended, and a rule only
entailed by a matched one counted when the case expects it."""

from __future__ import annotations

from pathlib import Path

from focal.bench.retrieval import passing
from focal.bench.retrieval_turn import TurnReading, decided
from focal.config.loader import load_agent
from focal.models.session import Session
from focal.models.turn import ScoredRule

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TUTORIAL = load_agent(EXAMPLES / "tutorial" / "agent.yaml")
RETAIL = load_agent(EXAMPLES / "retail" / "agent.yaml")


def reading(message: str, scenario: str | None = None, step: str | None = None, ended: str | None = None) -> TurnReading:
    session = Session(tenant_id="bench", agent_id=TUTORIAL.id, session_id="s", customer_id="c",
                      active_scenario_id=scenario, active_step_id=step)
    return TurnReading(session, message, [], ended)


def test_a_question_about_how_things_are_is_not_held_back_by_a_flow_it_resembles() -> None:
    fines = ScoredRule(rule_id="fines", score=.5, scope="GLOBAL", flow_id="renew", flow_score=.8, best_score=.5)
    assert decided(TUTORIAL, [fines], reading("How much are the overdue fines?")) == {"fines"}
    assert decided(TUTORIAL, [fines], reading("Renew my book and sort out the fines")) == set()


def test_inside_a_flow_a_rule_that_answers_questions_is_not_said_to_a_message_that_asks_none() -> None:
    hours = ScoredRule(rule_id="opening_hours", score=.6, scope="GLOBAL", best_score=.6)
    assert decided(TUTORIAL, [hours], reading("Renew it for the weekend", "renew", "ask_weeks")) == set()
    assert decided(TUTORIAL, [hours], reading("When are you open at the weekend?", "renew", "ask_weeks")) == {"opening_hours"}
    assert decided(TUTORIAL, [hours], reading("Renew it for the weekend")) == {"opening_hours"}  # outside a flow


def test_a_turn_the_sensor_ended_reaches_no_rule() -> None:
    hours = ScoredRule(rule_id="opening_hours", score=.6, scope="GLOBAL", best_score=.6)
    assert decided(TUTORIAL, [hours], reading("When are you open?", ended="rejected")) == set()


def test_an_entailed_rule_counts_only_when_the_case_expects_it() -> None:
    rule = next(r for r in RETAIL.rules if r.entails_rule_ids and not r.is_hard_constraint)
    entailed = rule.entails_rule_ids[0]
    cand = ScoredRule(rule_id=rule.id, score=.6, scope=rule.scope.value, best_score=.6)
    assert passing(RETAIL, [cand]) == {rule.id}
    assert passing(RETAIL, [cand], expected=(rule.id, entailed)) == {rule.id, entailed}
