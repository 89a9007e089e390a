"""The report of `focal bench enforcement` (focal.bench.enforcement.format_report) on outcomes built by hand: the
per-lane and per-check table, each lane's status, the totals, and the wrong cases under --show."""

from __future__ import annotations

from pathlib import Path

from focal.bench.enforcement import Outcome, format_report
from focal.bench.enforcement_cases import Case
from focal.config.loader import load_agent

DEMO = Path(__file__).resolve().parents[2] / "examples" / "enforcement_demo" / "agent.yaml"


def case(case_id: str, expected: tuple[str, ...] = (), hard: bool = False, category: str = "caps",
         judge: dict | None = None) -> Case:
    return Case(case_id, category, "m", "d", frozenset(expected), hard=hard, judge=judge)


OUTCOMES = [
    Outcome(case("tp", ("discount_cap",)), {"discount_cap": "deterministic"}, [], {"deterministic": 1.0, "relevance": 4.0}, 6.0),
    Outcome(case("fn", ("discount_cap",), hard=True), {}, [], {"deterministic": 2.0}, 3.0),
    Outcome(case("fp", category="plans"), {"no_enterprise_plan": "deterministic", "relevance": "relevance"}, [],
            {"deterministic": 1.5, "relevance": 5.0}, 8.0),
    Outcome(case("judged", ("no_health_claims",), category="health", judge={"no_health_claims": {"compliant": False}}),
            {"no_health_claims": "judge"}, [], {"judge": 30.0}, 31.0),
    Outcome(case("unv", category="health"), {}, ["no_health_claims"], {"judge": 0.1}, 1.0),  # no verdict: its time not counted
    Outcome(case("odd"), {"tripwire_x": "tripwire"}, [], {}, 2.0),  # a lane of its own, listed after the known ones
]

EVERY_LANE = [
    "enforcement on set.yaml: agent 'enforcement_demo', 6 cases (1 hard, 3 compliant), one draft each, "
    'max_retries 0, output checks on: relevance',
    'categories: caps 3, health 2, plans 1',
    '',
    'lane / check                 TP   FP   FN    prec recall     excl. hard   p50 ms  p95 ms',
    'deterministic                 1    1    1   0.500  0.500   0.500  1.000     1.50    1.95',
    '  discount_cap                1    0    1   1.000  0.500   1.000  1.000  ',
    '  no_enterprise_plan          0    1    0   0.000      —   0.000      —  ',
    '  tripwire_x                  0    1    0   0.000      —   0.000      —  ',
    'judge                         1    0    0   1.000  1.000   1.000  1.000    30.00   30.00'
    '  scripted verdicts; unverified (no verdict) in 1 case(s)',
    '  no_health_claims            1    0    0   1.000  1.000   1.000  1.000  ',
    'relevance                     0    1    0   0.000      —   0.000      —     4.50    4.95',
    '  relevance                   0    1    0   0.000      —   0.000      —  ',
    'grounding                     0    0    0       —      —       —      —        —       —  off (the set is not labelled for it)',
    'tripwire                      0    1    0   0.000      —   0.000      —  ',
    'all lanes                     2    3    1   0.400  0.667   0.400  1.000     4.50   25.25  (timing: the whole stage)',
    '',
    'violating drafts caught (every expected id reported): 2/3 (66.7%)',
    'false-block rate on compliant drafts: 2/3 (66.7%); by lane: deterministic 1, judge 0, relevance 1, grounding 0',
    'cases with exactly the expected verdict: 3/6',
    "  wrong fn (hard): missed ['discount_cap'], false -",
    "  wrong fp: missed -, false ['no_enterprise_plan', 'relevance']",
    "  wrong odd: missed -, false ['tripwire_x']",
]

NO_MODEL = [
    "enforcement on set.yaml: agent 'enforcement_demo', 3 cases (1 hard, 1 compliant), one draft each, "
    'max_retries 0, output checks on: relevance, grounding',
    'categories: caps 2, plans 1',
    '',
    'lane / check                 TP   FP   FN    prec recall     excl. hard   p50 ms  p95 ms',
    'deterministic                 1    1    1   0.500  0.500   0.500  1.000     1.50    1.95',
    '  discount_cap                1    0    1   1.000  0.500   1.000  1.000  ',
    '  no_enterprise_plan          0    1    0   0.000      —   0.000      —  ',
    'judge                         0    0    0       —      —       —      —        —       —'
    '  no model: subjective rules marked unverified',
    'relevance                     0    1    0   0.000      —   0.000      —     4.50    4.95',
    '  relevance                   0    1    0   0.000      —   0.000      —  ',
    'grounding                     0    0    0       —      —       —      —        —       —  not run (no verdict, no timing)',
    'all lanes                     1    2    1   0.333  0.500   0.333  1.000     6.00    7.80  (timing: the whole stage)',
    '',
    'violating drafts caught (every expected id reported): 1/2 (50.0%)',
    'false-block rate on compliant drafts: 1/1 (100.0%); by lane: deterministic 1, judge 0, relevance 1, grounding 0',
    'cases with exactly the expected verdict: 1/3',
]

FAIL_CLOSED = [
    "enforcement on set.yaml: agent 'enforcement_demo', 2 cases (1 hard, 0 compliant), one draft each, "
    'max_retries 0, output checks on: none',
    'categories: caps 2',
    '',
    'lane / check                 TP   FP   FN    prec recall     excl. hard   p50 ms  p95 ms',
    'deterministic                 1    0    1   1.000  0.500   1.000  1.000     1.50    1.95',
    '  discount_cap                1    0    1   1.000  0.500   1.000  1.000  ',
    'judge                         0    0    0       —      —       —      —        —       —'
    '  no model: subjective rules block (fail_closed)',
    'relevance                     0    0    0       —      —       —      —     4.00    4.00  off (the set is not labelled for it)',
    'grounding                     0    0    0       —      —       —      —        —       —  off (the set is not labelled for it)',
    'all lanes                     1    0    1   1.000  0.500   1.000  1.000     4.50    5.85  (timing: the whole stage)',
    '',
    'violating drafts caught (every expected id reported): 1/2 (50.0%)',
    'false-block rate on compliant drafts: 0/0 (0.0%); by lane: deterministic 0, judge 0, relevance 0, grounding 0',
    'cases with exactly the expected verdict: 1/2',
]

EMPTY = [
    "enforcement on empty.yaml: agent 'enforcement_demo', 0 cases (0 hard, 0 compliant), one draft each, "
    'max_retries 0, output checks on: relevance, grounding',
    'categories: ',
    '',
    'lane / check                 TP   FP   FN    prec recall     excl. hard   p50 ms  p95 ms',
    'deterministic                 0    0    0       —      —       —      —        —       —  not run (no verdict, no timing)',
    'judge                         0    0    0       —      —       —      —        —       —'
    '  no model: subjective rules marked unverified',
    'relevance                     0    0    0       —      —       —      —        —       —  not run (no verdict, no timing)',
    'grounding                     0    0    0       —      —       —      —        —       —  not run (no verdict, no timing)',
    'all lanes                     0    0    0       —      —       —      —        —       —  (timing: the whole stage)',
    '',
    'violating drafts caught (every expected id reported): 0/0 (0.0%)',
    'false-block rate on compliant drafts: 0/0 (0.0%); by lane: deterministic 0, judge 0, relevance 0, grounding 0',
    'cases with exactly the expected verdict: 0/0',
]


def test_every_lane_with_scripted_judge_verdicts_an_extra_lane_and_the_wrong_cases():
    assert format_report(load_agent(DEMO), OUTCOMES, "set.yaml", show=True, checks=("relevance",)).splitlines() == EVERY_LANE


def test_without_judge_verdicts_the_judge_lane_says_what_the_agent_does():
    agent = load_agent(DEMO)
    assert format_report(agent, OUTCOMES[:3], "set.yaml").splitlines() == NO_MODEL
    closed = agent.model_copy(update={"enforcement": agent.enforcement.model_copy(update={"unverifiable_subjective": "fail_closed"})})
    assert format_report(closed, OUTCOMES[:2], "set.yaml", checks=()).splitlines() == FAIL_CLOSED


def test_a_set_without_cases():
    assert format_report(load_agent(DEMO), [], "empty.yaml").splitlines() == EMPTY
