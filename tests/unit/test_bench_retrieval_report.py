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
                    hit("shipping_times", .38)], [candidate("support_hours", .5), candidate("shipping_times", .38)]),
        CaseResult(Case("c", None, None, ()), [hit("support_hours", .5)], [candidate("support_hours", .5)]),
        CaseResult(Case("d", None, None, ("return_policy",)), [], []),  # nothing ranked: rank 1 of none
        CaseResult(Case("e", None, None, ("shipping_times",)), [hit("shipping_times", .2)], []),  # not a candidate
    ]
    assert [sorted(passing(agent, r.candidates)) for r in results] == [
        ["shipping_times"], ["support_hours"], ["support_hours"], [], []]
    assert per_rule_lines(agent, results) == [
        "rule                 cases   @1   @5  rank (mean)  score (min)     passed  false hits",
        "shipping_times           3    2    2          2.7         0.38        1/3           0",
        "return_policy            2    1    1          4.0            -        0/2           0",
        "support_hours            0    0    0            -            -        0/0           2",
        "payment_methods          0    0    0            -            -        0/0           0",
    ]
