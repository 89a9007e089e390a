"""Issue 18: when a draft needs both the draft reading and the judge, ONE call answers both, and it
fails closed exactly as the two separate calls do."""

from __future__ import annotations

import json

from focal.models.agent import AgentConfig, EnforcementConfig, ProfileFieldDefinition, Rule
from focal.models.turn import Draft, GenerateOutput, TurnRequest, TurnState
from focal.ports import ModelReply
from focal.stages.enforce import _check

CAP = Rule(id="cap", condition_text="c", action_text="a", is_hard_constraint=True, enforcement_expression="refund_amount <= 50")
TONE = Rule(id="tone", condition_text="c", action_text="be polite", is_hard_constraint=True, subjective=True)
FIELD = ProfileFieldDefinition(field_name="refund_amount", field_type="money", extraction_hints=["refund"], sources=["response"])
DRAFT = "I will refund the full price of the order."  # a cue and an amount word, no figure: the reading must ask


class _Model:
    def __init__(self, text: str | None):
        self.text, self.purposes = text, []

    def available(self, purpose: str) -> bool:
        return True

    def complete(self, purpose, messages, json_schema=None):
        self.purposes.append((purpose, json.loads(messages[-1]["content"].split("\n")[1])))
        if self.text is None:
            from focal.errors import ModelError

            raise ModelError("down")
        return ModelReply(text=self.text, model="fake")


class _Deps:
    def __init__(self, model):
        self.model = model
        self.clock = lambda: 1_795_867_200.0  # the turn's clock (a date read from a draft is read from it)

    def llm(self, agent, state=None):
        return self.model


def _run(text: str | None, mode: str = "fail_closed"):
    agent = AgentConfig(id="a", name="a", profile_field_definitions=[FIELD], rules=[CAP, TONE],
                        enforcement=EnforcementConfig(unverifiable_subjective=mode))
    state = TurnState(
        request=TurnRequest(tenant_id="t", agent_id="a", session_id="s", turn_id="x", message="m"),
        generate=GenerateOutput(drafts=[Draft(text=DRAFT, source="model")]),
    )
    model = _Model(text)
    return _check(agent, state, _Deps(model), [CAP, TONE], DRAFT), model, state


def test_reading_and_judging_one_draft_is_one_call():
    answer = {"verdicts": [{"rule_id": "tone", "compliant": True}], "values": {"refund_amount": 80}}
    violations, model, state = _run(json.dumps(answer))
    [(purpose, data)] = model.purposes
    assert purpose == "judge" and [f["name"] for f in data["fields"]] == ["refund_amount"]
    assert [r["rule_id"] for r in data["rules"]] == ["tone"]
    [cap] = violations  # the value the call read is evaluated: 80 > 50
    assert (cap.rule_id, cap.lane) == ("cap", "deterministic") and "80" in cap.reason
    assert [c.purpose for c in state.model_calls] == ["judge"]


def test_a_failed_batched_call_fails_closed_on_both():
    violations, model, _ = _run(None)
    assert len(model.purposes) == 1
    by_rule = {v.rule_id: v.reason for v in violations}
    assert by_rule["cap"].startswith("cannot verify") and by_rule["tone"].startswith("cannot verify")


def test_an_invalid_batched_answer_with_mark_unverified_still_blocks_the_uncertain_amount():
    violations, _, state = _run("not json", mode="mark_unverified")
    assert [v.rule_id for v in violations] == ["cap"] and violations[0].reason.startswith("cannot verify")
    assert state.enforce.report.unverified == ["tone"]
