"""A report that hands the conversation to a person acts wherever it stands in the message.

Some flows exist only to hand over at once: their entry step asks nothing and escalates whatever the values say
("Injury or chest pain at the club": the emergency text, then a person). Such a flow is the business's answer to a
*report*, and a report stays one when the customer asks something else in the same message: "I fell off a treadmill
and hurt my ankle, what should I put on it?" reports an injury, and the question after it must not turn the turn into
the health rule's answer. The whole message's vector sits between the report and the question, so it scores the
hand-off flow below the entry threshold (0.50 against 0.62 for the report alone on the gym desk).

So each part of a message (the same parts retrieval searches for their own rules: focal.retrieval.message_parts,
split at punctuation in every language) is scored against the scenarios as well, and a hand-off flow takes the best
score one of its parts gives it — only when that part fits it best of all flows, at or above the entry threshold (the
bar the whole message meets to start a flow), and better than the whole message fits any other flow. The lifted flow
is ranked first: a report outranks whatever else the message asks.
Route never lets a rule's answer stand in for such a flow (focal.stages.route), so the emergency text and the
hand-off come with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from focal.models.agent import AgentConfig, Scenario
from focal.models.context import IntentScore


def hands_off_at_once(scenario: Scenario | None) -> bool:
    """The scenario's entry step asks nothing and always escalates: the flow is a hand-off, not a task."""
    if scenario is None:
        return False
    entry = next((s for s in scenario.steps if s.id == scenario.entry_step_id), None)
    return (entry is not None and not entry.slots and not entry.call and not entry.requires_confirmation
            and any(t.escalate and not t.when for t in entry.transitions))


def handoff_flows(agent: AgentConfig) -> set[str]:
    return {s.id for s in agent.scenarios if hands_off_at_once(s)}


def with_reports(agent: AgentConfig, scores: list[IntentScore], part_scores: Sequence[list[IntentScore]],
                 notes: list[str]) -> list[IntentScore]:
    """The whole message's scores, with the hand-off flow that the message or one of its parts alone fits at or above
    the entry threshold ranked first, at the best of those scores."""
    flows, bar = handoff_flows(agent), agent.navigation.entry_threshold
    # the message as a whole asks for another flow more clearly than any part reports: that reading stands
    # ("Was passiert mit meinem Ticket, wenn das Konzert verschoben wird?" asks about the booking, whatever one clause resembles)
    asked = max((s.score for s in scores if s.scenario_id not in flows), default=float("-inf"))
    reports = [s for s in scores if s.scenario_id in flows and s.score >= bar]
    reports += [scored[0] for scored in part_scores
                if scored and scored[0].scenario_id in flows and scored[0].score >= max(bar, asked)]
    if not reports:
        return scores
    best = max(reports, key=lambda s: s.score)
    if scores and scores[0].scenario_id == best.scenario_id and scores[0].score >= best.score:
        return scores
    notes.append(f"the message reports {best.label} ({best.score:.2f}): its hand-off flow comes first")
    return [best, *[s for s in scores if s.scenario_id != best.scenario_id]]
