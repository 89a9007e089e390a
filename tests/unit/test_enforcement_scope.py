"""Which hard constraints a turn enforces, and that no switch turns them off."""

from __future__ import annotations

import pytest

from focal.config.loader import parse_agent_text
from focal.enforcement import guards
from focal.enforcement.repair import rules_to_enforce
from focal.enforcement.scope import ActiveScope, hard_constraints_in_scope
from focal.models.agent import AgentConfig, Rule, Scope
from focal.models.session import Session
from focal.models.turn import TurnRequest, TurnState

AGENT = AgentConfig.model_validate({
    "id": "a", "name": "A",
    "tools": [{"id": "pay", "entrypoint": "t.py:pay", "side_effect": True, "input": {"amount": {"type": "money"}}}],
    "scenarios": [
        {"id": "s1", "name": "S1", "entry_step_id": "x", "steps": [{"id": "x"}, {"id": "y"}]},
        {"id": "s2", "name": "S2", "entry_step_id": "z", "steps": [{"id": "z"}]},
    ],
    "rules": [
        {"id": "g", "condition_text": "c", "action_text": "a", "is_hard_constraint": True, "enforcement_expression": "True"},
        {"id": "sc1", "condition_text": "c", "action_text": "a", "scope": "SCENARIO", "scope_id": "s1",
         "is_hard_constraint": True, "enforcement_expression": "True"},
        {"id": "st1y", "condition_text": "c", "action_text": "a", "scope": "STEP", "scope_id": "s1.y",
         "is_hard_constraint": True, "enforcement_expression": "True"},
        {"id": "stz", "condition_text": "c", "action_text": "a", "scope": "STEP", "scope_id": "z",
         "is_hard_constraint": True, "enforcement_expression": "True"},
        {"id": "soft", "condition_text": "c", "action_text": "a", "scope": "SCENARIO", "scope_id": "s1"},
        {"id": "off", "condition_text": "c", "action_text": "a", "is_hard_constraint": True, "enabled": False,
         "enforcement_expression": "False"},
        {"id": "cap", "condition_text": "c", "action_text": "a", "is_hard_constraint": True,
         "guarded_tool_ids": ["pay"], "enforcement_expression": "amount <= 50"},
    ],
})


def state(active: tuple[str, str] | None = None, started: tuple[str, str] | None = None,
          completed: str | None = None, cancelled: str | None = None) -> TurnState:
    session = Session(tenant_id="t", agent_id="a", session_id="s", customer_id="c",
                      active_scenario_id=active[0] if active else None, active_step_id=active[1] if active else None)
    st = TurnState(request=TurnRequest(tenant_id="t", agent_id="a", session_id="s", turn_id="1", message="hi"), session=session)
    st.route.decision.started_scenario_id, st.route.decision.started_step_id = started or (None, None)
    st.route.decision.completed_scenario_id, st.route.decision.cancelled_scenario_id = completed, cancelled
    return st


def ids(rules: list[Rule]) -> list[str]:
    return sorted(r.id for r in rules)


def test_outside_any_flow_only_global_constraints_apply():
    assert ids(rules_to_enforce(AGENT, state())) == ["g"]


def test_the_active_scenario_and_step_bring_their_constraints_whatever_retrieval_scored():
    st = state(active=("s1", "y"))
    assert st.route.matched_rules == []
    assert ids(rules_to_enforce(AGENT, st)) == ["g", "sc1", "st1y"]


def test_a_scenario_left_or_finished_this_turn_is_still_in_scope():
    assert ids(rules_to_enforce(AGENT, state(started=("s1", "x")))) == ["g", "sc1"]
    assert ids(rules_to_enforce(AGENT, state(completed="s1"))) == ["g", "sc1"]
    assert ids(rules_to_enforce(AGENT, state(cancelled="s1", active=("s2", "z")))) == ["g", "sc1", "stz"]


def test_a_bare_step_id_matches_that_step_in_any_scenario():
    scope = ActiveScope()
    scope.add("s2", "z")
    assert ids(hard_constraints_in_scope(AGENT, scope)) == ["cap", "g", "stz"]  # guards and response constraints
    assert ActiveScope().contains(Rule(id="r", condition_text="c", action_text="a", scope=Scope.SCENARIO)) is False


def test_guards_are_not_response_constraints_and_check_the_call_instead():
    assert "cap" not in ids(rules_to_enforce(AGENT, state()))
    [verdict] = guards.check_call(AGENT, "pay", {"amount": 75}, {}, ActiveScope(), confirmed=True)
    assert verdict.rule_id == "cap" and not verdict.passed and "75" in verdict.reason
    [ok] = guards.check_call(AGENT, "pay", {"amount": 20}, {"amount": 900}, ActiveScope(), confirmed=True)
    assert ok.passed  # the call's own argument, not a session value of the same name
    [unknown] = guards.check_call(AGENT, "pay", {}, {}, ActiveScope(), confirmed=True)
    assert not unknown.passed and unknown.reason == "cannot verify: amount unknown"


@pytest.mark.parametrize("value", ["0", "'yes'", "None", "[1]"])
def test_a_guard_that_does_not_give_true_blocks(value):
    rule = Rule(id="r", condition_text="c", action_text="a", is_hard_constraint=True, guarded_tool_ids=["pay"],
                enforcement_expression=value)
    assert guards.evaluate(rule, {}).passed is False


@pytest.mark.parametrize("key", ["enabled", "deterministic_enabled", "always_enforce_global"])
def test_no_switch_turns_hard_constraint_enforcement_off(key):
    loaded = parse_agent_text(f"id: a\nname: A\nenforcement:\n  {key}: false\n", "agent.yaml")
    assert loaded.config is None
    [problem] = loaded.problems
    assert problem.path == f"enforcement.{key}" and "always enforced" in problem.message and problem.line == 4


def test_the_default_for_an_unjudgeable_subjective_rule_is_to_block():
    assert AgentConfig(id="a", name="A").enforcement.unverifiable_subjective == "fail_closed"
