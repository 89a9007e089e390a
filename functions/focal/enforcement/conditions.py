"""When a subjective hard constraint needs the judge: only when its condition may hold on this turn.

A subjective rule ("when the customer is frustrated, acknowledge it before giving instructions") is
judged on a draft because no offline reading can tell whether the draft complies. Whether its
*condition* holds is another question, about the customer's message and the conversation, and it is
answered before any draft exists: when the sensor calls its model anyway, that same call reads the
condition of every subjective hard constraint in scope at that point (`sensor_rules`) as holds,
does_not_hold or depends_on_reply. Only a model reading of does_not_hold spares the rule the judge;
everything else is judged as before:
- no sensor model call on the turn (offline reading, fast path, no model): judged;
- a rule that came into scope after the sensor (a flow entered by the route): judged;
- holds, depends_on_reply, a missing or unreadable answer: judged.
The reading never comes from the draft (a draft is never its own judge), and the trace names each rule
that was not judged and why (`enforcement.not_judged`).
"""

from __future__ import annotations

from focal.enforcement.guards import is_guard
from focal.enforcement.scope import ActiveScope, hard_constraints_in_scope
from focal.models.agent import AgentConfig, Rule
from focal.models.session import Session
from focal.models.turn import SensorOutput, TurnState

NOT_HOLDING = "the sensor model read its condition as not holding on this turn"


def sensor_rules(agent: AgentConfig, session: Session) -> list[Rule]:
    """The subjective response constraints in scope where the turn starts: their conditions go to the sensor."""
    scope = ActiveScope()
    scope.add(session.active_scenario_id, session.active_step_id)
    return [r for r in hard_constraints_in_scope(agent, scope)
            if r.subjective and not is_guard(r) and r.condition_text.strip()]


def read_as_not_holding(sensor: SensorOutput) -> set[str]:
    """Ids of the rules whose condition the sensor *model* read as does_not_hold on this turn."""
    context = sensor.context
    if context is None or context.source != "model":
        return set()
    return {rule_id for rule_id, reading in context.conditions.items() if reading == "does_not_hold"}


def still_to_judge(sensor: SensorOutput, subjective: list[Rule]) -> list[Rule]:
    """`subjective` minus the rules whose condition the sensor model read as not holding."""
    spared = read_as_not_holding(sensor)
    return [r for r in subjective if r.id not in spared]


def rules_to_judge(state: TurnState, subjective: list[Rule]) -> list[Rule]:
    """`still_to_judge`, each rule spared noted in the trace."""
    judged = still_to_judge(state.sensor, subjective)
    kept = {r.id for r in judged}
    state.enforce.report.not_judged.update({r.id: NOT_HOLDING for r in subjective if r.id not in kept})
    return judged
