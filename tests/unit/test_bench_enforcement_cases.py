"""The labelled sets of `focal bench enforcement` (focal.bench.enforcement_cases): a case read in full, the exact
error for each way a case file can be malformed, and each labelling error against the agent."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from focal.bench.enforcement_cases import Case, case_problems, load_cases
from focal.config.loader import load_agent

DEMO = Path(__file__).resolve().parents[2] / "examples" / "enforcement_demo" / "agent.yaml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_case_read_in_full_merges_its_context(tmp_path):
    path = write(tmp_path, """\
        contexts:
          slots:
            scenario: delivery
            step: offer_date
            profile: {plan_offered: basic}
            variables: {latest_slot: '2024-06-01', max_discount: 10}
            tools: {check_slots: {latest: '2024-06-01'}}
            matched_rules: [date_within_slots, discount_cap]
        cases:
          - id: late
            category: dates
            context: slots
            profile: {discount_offered: 5}
            variables: {max_discount: 15}
            matched_rules: [discount_cap, no_enterprise_plan]
            message: When can you come?
            draft: On June 9.
            violations: [date_within_slots]
            hard: true
            note: after the latest slot
            judge: {no_health_claims: {compliant: true}}
          - {id: plain, message: hi, draft: hello, violations: [], context: {scenario: null}}
    """)
    assert load_cases(path) == [
        Case(id="late", category="dates", message="When can you come?", draft="On June 9.",
             expected=frozenset({"date_within_slots"}), scenario="delivery", step="offer_date",
             profile={"plan_offered": "basic", "discount_offered": 5},
             variables={"latest_slot": "2024-06-01", "max_discount": 15},
             tools={"check_slots": {"latest": "2024-06-01"}},
             matched_rules=("date_within_slots", "discount_cap", "no_enterprise_plan"), hard=True,
             note="after the latest slot", judge={"no_health_claims": {"compliant": True}}),
        Case(id="plain", category="uncategorised", message="hi", draft="hello", expected=frozenset()),
    ]


CASE = "{id: a, message: hi, draft: hello, violations: []"


@pytest.mark.parametrize(("text", "error"), [
    ("[]", ": expected a mapping with a list under 'cases:'"),
    ("cases: {}", ": expected a mapping with a list under 'cases:'"),
    ("cases: []\nextra: 1", ": unknown key(s) ['extra']"),
    ("contexts: [1]\ncases: []", ": contexts must be a mapping"),
    ("cases: [5]", ": cases[0] must be a mapping"),
    (f"cases: [{CASE}, colour: red}}]", ": cases[0]: unknown key(s) ['colour']"),
    ("cases: [{message: hi, draft: hello, violations: []}]", ": cases[0].id must be a unique non-empty string"),
    (f"cases: [{CASE}}}, {CASE}}}]", ": cases[1].id must be a unique non-empty string"),
    ("cases: [{id: a, message: yes, draft: hello, violations: []}]",
     ": case a.message must be a non-empty string (quote yes/no/on/off)"),
    ("cases: [{id: a, message: hi, draft: ' ', violations: []}]",
     ": case a.draft must be a non-empty string (quote yes/no/on/off)"),
    ("cases: [{id: a, message: hi, draft: hello, violations: x}]",
     ": case a.violations must be a list of rule ids or check names ([] for compliant)"),
    (f"cases: [{CASE}, context: nowhere}}]", ": case a.context: no context named 'nowhere' under 'contexts'"),
    (f"cases: [{CASE}, context: [1]}}]", ": case a.context must be a mapping"),
    (f"cases: [{CASE}, context: {{colour: red}}}}]", ": case a.context: unknown key(s) ['colour']"),
    (f"cases: [{CASE}, judge: [1]}}]", ": case a.judge must be a mapping"),
    (f"cases: [{CASE}, judge: {{tone: {{compliant: maybe}}}}}}]",
     ": case a.judge.tone must be a mapping with compliant: true|false"),
    (f"cases: [{CASE}, context: {{step: 3}}}}]", ": case a.context.step must be a string or null"),
    (f"cases: [{CASE}, matched_rules: [1]}}]", ": case a: matched_rules must be lists of rule ids"),
    (f"cases: [{CASE}, context: {{tools: [1]}}}}]", ": case a.context.tools must be a mapping"),
    (f"cases: [{CASE}, context: {{tools: {{t: 1}}}}}}]", ": case a.context.tools.t must be a mapping"),
    (f"cases: [{CASE}, hard: 1}}]", ": case a.hard must be true or false"),
    (f"cases: [{CASE}, context: {{profile: 1}}}}]", ": case a.context.profile must be a mapping"),
    (f"cases: [{CASE}, profile: 1}}]", ": case a.profile must be a mapping"),
    (f"cases: [{CASE}, context: {{variables: 1}}}}]", ": case a.context.variables must be a mapping"),
    (f"cases: [{CASE}, variables: 1}}]", ": case a.variables must be a mapping"),
])
def test_a_malformed_case_file_names_the_case_and_the_key(tmp_path, text, error):
    path = write(tmp_path, text)
    with pytest.raises(ValueError) as caught:
        load_cases(path)
    assert str(caught.value) == f"{path}{error}"


def test_each_labelling_error_against_the_agent():
    agent = load_agent(DEMO)
    cases = [
        Case("s", "c", "m", "d", frozenset(), scenario="nowhere", step="anything"),
        Case("t", "c", "m", "d", frozenset(), scenario="delivery", step="pay"),
        Case("u", "c", "m", "d", frozenset(), step="offer_date"),
        Case("f", "c", "m", "d", frozenset(), profile={"colour": "red"}, variables={"size": 1, "latest_slot": "x"}),
        Case("o", "c", "m", "d", frozenset(), tools={"ghost": {}, "check_slots": {"latest": 1, "earliest": 2}}),
        Case("r", "c", "m", "d", frozenset({"date_within_slots", "discount_cap", "relevance", "grounding", "nope"}),
             matched_rules=("missing",)),
        Case("j", "c", "m", "d", frozenset(), judge={"discount_cap": {"compliant": True}, "gone": {"compliant": False},
                                                     "no_health_claims": {"compliant": True}}),
        Case("ok", "c", "m", "d", frozenset({"date_within_slots"}), scenario="delivery", step="offer_date",
             matched_rules=("date_within_slots",)),
    ]
    assert case_problems(agent, cases, checks=("relevance",)) == [
        "case s: scenario 'nowhere' does not exist",
        "case s: step 'anything' is not a step of scenario 'nowhere'",
        "case t: step 'pay' is not a step of scenario 'delivery'",
        "case u: step 'offer_date' is not a step of scenario None",
        "case f: 'colour' is not a declared field",
        "case f: 'size' is not a declared field",
        "case o: tool 'ghost' does not exist",
        "case o: check_slots has no output 'earliest'",
        "case r: matched rule 'missing' does not exist",
        "case r: expected violation 'date_within_slots' is not enforced in this context (not a GLOBAL hard constraint "
        "nor a matched one)",
        "case r: expects 'grounding', which this set's output_checks leave off",
        "case r: expected violation 'nope' is neither a rule nor a check (relevance, grounding)",
        "case j: judge verdict for 'discount_cap', which is not a subjective rule",
        "case j: judge verdict for 'gone', which is not a subjective rule",
    ]


def test_a_sets_today_is_the_date_of_every_case_and_a_bad_one_is_named(tmp_path):
    case = "cases: [{id: a, category: dates, message: 'when?', draft: 'Soon.', violations: []}]\n"
    assert [c.today for c in load_cases(write(tmp_path, "today: 2026-03-10\n" + case))] == ["2026-03-10"]
    assert [c.today for c in load_cases(write(tmp_path, case))] == [None]
    with pytest.raises(ValueError, match=r"today must be a date written YYYY-MM-DD, not 'next week'"):
        load_cases(write(tmp_path, "today: next week\n" + case))
