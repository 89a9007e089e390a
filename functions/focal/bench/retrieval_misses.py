"""Why an expected rule does not pass the rule filter in `focal bench retrieval`: the first similarity check it fails.

A miss below the threshold asks for a better score (keys, model); one cut by the best rule's margin or by a
competing flow asks for a different relative check. Counting them tells which of the two a change should address.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from focal.dialogue.match_bounds import best_margin, crowd_floor, rule_threshold
from focal.models.agent import AgentConfig
from focal.models.turn import ScoredRule

Outcome = tuple[Sequence[str], Sequence[ScoredRule]]  # a case's expected rule ids and the candidates of its turn

NOT_CANDIDATE = "not among the candidates (top_k)"
BELOW_THRESHOLD = "below the threshold"
CROWDED = "not clear of the message's crowd"
BELOW_BEST = "more than the margin below the best rule"
FLOW_BETTER = "another flow's example fits better"
CAUSES = (BELOW_THRESHOLD, CROWDED, BELOW_BEST, FLOW_BETTER, NOT_CANDIDATE)


def miss_cause(agent: AgentConfig, candidates: Sequence[ScoredRule], rule_id: str) -> str | None:
    """The first similarity check of the rule filter (focal.dialogue.rule_filter.below) the rule fails; None when
    it passes them all."""
    cfg = agent.retrieval
    cand = next((c for c in candidates if c.rule_id == rule_id), None)
    if cand is None:
        return NOT_CANDIDATE
    if cand.score < rule_threshold(agent, cand.nearest_other):
        return BELOW_THRESHOLD
    if (floor := crowd_floor(cand.crowd_score)) is not None and cand.score < floor:
        return CROWDED
    best = cand.best_score if cand.best_score is not None else max(c.score for c in candidates)
    if cand.score < best - best_margin(agent, best):
        return BELOW_BEST
    if cand.flow_score is not None and cand.score < cand.flow_score - cfg.rule_match_margin:
        return FLOW_BETTER
    return None


def miss_causes(agent: AgentConfig, outcomes: Iterable[Outcome]) -> Counter[str]:
    """How many expected rule ids fail each check, over the cases."""
    return Counter(cause for expected, candidates in outcomes for rule_id in expected
                   if (cause := miss_cause(agent, candidates, rule_id)) is not None)


def miss_line(agent: AgentConfig, outcomes: Iterable[Outcome]) -> str:
    counts = miss_causes(agent, outcomes)
    if not counts:
        return "expected ids not passing: none"
    return "expected ids not passing, by the first check they fail: " + ", ".join(
        f"{cause} {counts[cause]}" for cause in CAUSES if counts[cause])
