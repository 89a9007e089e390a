"""The per-rule table of `focal bench retrieval --show` (focal.bench.retrieval.per_rule_lines), on results built by
hand: cases per rule, rank figures, the lowest score, how many pass the rule filter, and false hits."""

from __future__ import annotations

from pathlib import Path

from focal.bench.retrieval import Case, CaseResult, passing, per_rule_lines
from focal.config.loader import load_agent
from focal.models.turn import ScoredRule
from focal.retrieval.matching import RuleHit

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


def hit(rule_id: str, score: float) -> RuleHit:
    return RuleHit(rule_id, score, "similarity")


def candidate(rule_id: str, score: float) -> ScoredRule:
    return ScoredRule(rule_id=rule_id, score=score, scope="GLOBAL")


def test_the_per_rule_table() -> None:
    agent = load_agent(RETAIL)
    agent = agent.model_copy(update={"rules": [agent.rule(i) for i in ("shipping_times", "return_policy", "support_hours",
                                                                      "payment_methods")]})
    results = [
        CaseResult(Case("a", None, None, ("shipping_times",)), [hit("shipping_times", .6), hit("support_hours", .3)],
                   [candidate("shipping_times", .6), candidate("support_hours", .3)]),
        CaseResult(Case("b", None, None, ("shipping_times", "return_policy")),
                   [hit("support_hours", .5), hit("payment_methods", .45), hit("x1", .4), hit("x2", .4), hit("x3", .4),
                    hit("shipping_times", .36)], [candidate("support_hours", .5), candidate("shipping_times", .36)]),
        CaseResult(Case("c", None, None, ()), [hit("support_hours", .5)], [candidate("support_hours", .5)]),
        CaseResult(Case("d", None, None, ("return_policy",)), [], []),  # nothing ranked: rank 1 of none
        CaseResult(Case("e", None, None, ("shipping_times",)), [hit("shipping_times", .2)], []),  # not a candidate
    ]
    assert [sorted(passing(agent, r.candidates)) for r in results] == [
        ["shipping_times"], ["support_hours"], ["support_hours"], [], []]
    assert per_rule_lines(agent, results) == [
        "rule                 cases   @1   @5  rank (mean)  score (min)     passed  false hits",
        "shipping_times           3    2    2          2.7         0.36        1/3           0",
        "return_policy            2    1    1          4.0            -        0/2           0",
        "support_hours            0    0    0            -            -        0/0           2",
        "payment_methods          0    0    0            -            -        0/0           0",
    ]


def test_each_missed_expected_rule_is_counted_by_the_first_check_it_fails() -> None:
    """Below the agent's threshold (0.25), not clear of the message's crowd, more than the margin (0.1, or a quarter of
    the best score) below the best rule of its search, beaten by another flow's example, or not among the candidates
    at all: the report says which cause dominates."""
    from focal.bench.retrieval import labelled_report
    from focal.bench.retrieval_misses import BELOW_BEST, BELOW_THRESHOLD, CROWDED, FLOW_BETTER, NOT_CANDIDATE, miss_causes

    agent = load_agent(RETAIL)
    flow = ScoredRule(rule_id="support_hours", score=.4, scope="GLOBAL", flow_id="refund", flow_score=.6, best_score=.4)
    results = [
        CaseResult(Case("a", None, None, ("shipping_times",)), [], [candidate("shipping_times", .2)]),
        CaseResult(Case("b", None, None, ("return_policy", "warranty")), [],
                   [candidate("warranty", .7), candidate("return_policy", .5)]),
        CaseResult(Case("c", None, None, ("support_hours",)), [], [flow]),
        CaseResult(Case("d", None, None, ("deals",)), [], []),
        CaseResult(Case("e", None, None, ()), [], [candidate("deals", .5)]),
        CaseResult(Case("f", None, None, ("warranty",)), [],
                   [ScoredRule(rule_id="warranty", score=.4, scope="GLOBAL", best_score=.4, crowd_score=.3)]),
    ]
    outcomes = [(r.case.expected, r.candidates) for r in results]
    assert miss_causes(agent, outcomes) == {BELOW_THRESHOLD: 1, CROWDED: 1, BELOW_BEST: 1, FLOW_BETTER: 1,
                                              NOT_CANDIDATE: 1}
    assert ("expected ids not passing, by the first check they fail: below the threshold 1, not clear of the message's "
            "crowd 1, more than the margin below the best rule 1, another flow's example fits better 1, not among the candidates (top_k) 1"
            ) in labelled_report(agent, results, (1,)).splitlines()
