"""Lane 1 fails closed; draft extraction feeds it only the names the expressions read."""

from __future__ import annotations

from focal.enforcement.deterministic import deterministic
from focal.enforcement.reading import expression_names
from focal.enforcement.variables import draft_variables
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule

CAP = Rule(id="cap", condition_text="c", action_text="a", is_hard_constraint=True,
           enforcement_expression="refund_amount <= 50 or is_premium")
AGENT = AgentConfig(
    id="a", name="a",
    profile_field_definitions=[
        ProfileFieldDefinition(field_name="refund_amount", field_type="money", extraction_hints=["refund"], sources=["response"]),
        ProfileFieldDefinition(field_name="is_premium", field_type="boolean", sources=["profile"]),
        ProfileFieldDefinition(field_name="rivals", field_type="entity_list", allowed_values=["Amazon"], sources=["response"]),
    ],
    rules=[CAP],
)


def test_a_promise_over_the_cap_is_a_violation():
    variables = {"is_premium": False, **draft_variables(AGENT, "I'll refund you $75 today.", {"refund_amount"}).values}
    [violation] = deterministic([CAP], variables)
    assert violation.rule_id == "cap" and violation.lane == "deterministic"
    assert "75" in violation.reason


def test_within_the_cap_or_premium_passes():
    assert deterministic([CAP], {"refund_amount": 50.0, "is_premium": False}) == []
    assert deterministic([CAP], {"refund_amount": 75.0, "is_premium": True}) == []


def test_an_unknown_variable_fails_closed_when_the_verdict_depends_on_it():
    [violation] = deterministic([CAP], {"refund_amount": 75.0})
    assert violation.reason.startswith("cannot verify") and "is_premium" in violation.reason


def test_a_verdict_the_known_values_settle_is_given_whatever_the_unknown_one_is():
    """Newcomer finding: `not fee_waived or hours_until_checkin >= 24` blocked every turn before the booking was
    looked up, although the waiver was not promised."""
    assert deterministic([CAP], {"refund_amount": 10.0}) == []  # holds whether or not the customer is premium
    late = Rule(id="late", condition_text="c", action_text="a", is_hard_constraint=True,
                enforcement_expression="not fee_waived or hours_until_checkin >= 24")
    assert deterministic([late], {"fee_waived": False}) == []
    [violation] = deterministic([late], {"fee_waived": True})
    assert violation.reason == "cannot verify: hours_until_checkin unknown"
    both = Rule(id="both", condition_text="c", action_text="a", is_hard_constraint=True,
                enforcement_expression="refund_amount <= 50 and is_premium")
    [violation] = deterministic([both], {"is_premium": False})  # false whatever the amount
    assert "is false" in violation.reason and "'refund_amount': 'unknown'" in violation.reason


def test_an_expression_that_errors_fails_closed():
    broken = CAP.model_copy(update={"enforcement_expression": "refund_amount + 'x' > 1"})
    [violation] = deterministic([broken], {"refund_amount": 10.0})
    assert violation.reason.startswith("cannot verify")


def test_only_response_fields_the_expressions_name_are_extracted():
    names = expression_names([CAP])
    assert names == {"refund_amount", "is_premium"}
    got = draft_variables(AGENT, "Refund of $20 approved. Amazon is cheaper.", names)
    assert got.values == {"refund_amount": 20.0}  # is_premium is not a response field; rivals not asked for
    assert draft_variables(AGENT, "Amazon is cheaper.", {"rivals"}).values == {"rivals": ["Amazon"]}


class _Answers:
    """A LanguageModel port fake: replies with fixed text (the real adapter is litellm)."""

    def __init__(self, text: str):
        self.text = text

    def available(self, purpose: str) -> bool:
        return True

    def complete(self, purpose, messages, json_schema=None):
        from focal.ports import ModelReply

        return ModelReply(text=self.text, model="fake/judge", input_tokens=10, output_tokens=5)


def test_an_invalid_judge_answer_is_one_failed_call_and_no_verdict():
    from focal.enforcement.lanes import judge

    subjective = Rule(id="tone", condition_text="c", action_text="be polite", is_hard_constraint=True, subjective=True)
    calls = []
    assert judge(_Answers("not json"), [subjective], "draft", calls) is None
    assert [(c.purpose, c.ok, c.note) for c in calls] == [("judge", False, "invalid answer")]


def test_a_judge_verdict_becomes_a_violation():
    from focal.enforcement.lanes import judge

    subjective = Rule(id="tone", condition_text="c", action_text="be polite", is_hard_constraint=True, subjective=True)
    calls = []
    answer = '{"verdicts": [{"rule_id": "tone", "compliant": false, "reason": "rude"}]}'
    [violation] = judge(_Answers(answer), [subjective], "draft", calls)
    assert (violation.rule_id, violation.lane, violation.reason) == ("tone", "judge", "rude")
    assert [(c.model, c.ok, c.input_tokens) for c in calls] == [("fake/judge", True, 10)]


def test_an_unknown_variable_named_like_a_function_is_unknown_not_the_function():
    """Red team: `discount <= 20 or max` with the `max` plan flag unknown passed, `max` read as the function."""
    plan = Rule(id="plan", condition_text="c", action_text="a", is_hard_constraint=True,
                enforcement_expression="refund_amount <= 50 or max")
    [violation] = deterministic([plan], {"refund_amount": 75.0})
    assert violation.reason == "cannot verify: max unknown"
    assert deterministic([plan], {"refund_amount": 75.0, "max": True}) == []
