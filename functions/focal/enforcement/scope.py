"""Which hard constraints are in scope on a turn: decided by the conversation's state, never by similarity.

A hard constraint is in scope when its scope is active: GLOBAL always; SCENARIO when its scenario is
the active one, or was entered or left this turn; STEP when its step is, likewise. Retrieval scores,
fire limits, cooldowns and exclusions decide soft rules only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from focal.models.agent import AgentConfig, Rule, Scope
from focal.models.turn import TurnState


@dataclass
class ActiveScope:
    scenarios: set[str] = field(default_factory=set)
    steps: set[tuple[str, str]] = field(default_factory=set)  # (scenario_id, step_id)

    def add(self, scenario_id: str | None, step_id: str | None) -> None:
        if scenario_id:
            self.scenarios.add(scenario_id)
            if step_id:
                self.steps.add((scenario_id, step_id))

    def contains(self, rule: Rule) -> bool:
        if rule.scope == Scope.GLOBAL:
            return True
        if not rule.scope_id:
            return False
        if rule.scope == Scope.SCENARIO:
            return rule.scope_id in self.scenarios
        if "." in rule.scope_id:
            scenario_id, step_id = rule.scope_id.split(".", 1)
            return (scenario_id, step_id) in self.steps
        return any(step_id == rule.scope_id for _, step_id in self.steps)


def turn_scope(agent: AgentConfig, state: TurnState) -> ActiveScope:
    """The scenarios and steps active at any point of this turn: where it started (a flow it left or
    interrupted), where it is now (a flow it entered), and what it completed or cancelled."""
    scope = ActiveScope()
    d = state.route.decision
    scope.add(d.started_scenario_id, d.started_step_id)
    scope.add(d.scenario_id, d.step_id)
    if state.session is not None:
        scope.add(state.session.active_scenario_id, state.session.active_step_id)
    for scenario_id in (d.completed_scenario_id, d.cancelled_scenario_id):
        scenario = agent.scenario(scenario_id)
        if scenario is not None:
            scope.add(scenario.id, None)
    return scope


def hard_constraints_in_scope(agent: AgentConfig, scope: ActiveScope) -> list[Rule]:
    """Every enabled hard constraint whose scope is active (guards and response constraints alike)."""
    return [r for r in agent.rules if r.is_hard_constraint and r.enabled and scope.contains(r)]
