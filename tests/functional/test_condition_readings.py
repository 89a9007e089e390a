"""Model calls enforcement spares without dropping a check: a subjective hard constraint is judged only
when its condition may hold (focal.enforcement.conditions), and a rule no draft can satisfy is not
regenerated for (focal.enforcement.repair).

The guardrails example's GLOBAL rule `acknowledge_frustration` ("The customer is upset or frustrated")
is judged on every draft unless the sensor's own model call read its condition as not holding. These
tests script that model: its sensor answer, its drafts and its verdicts, and count the calls.
"""

from __future__ import annotations

import json
from pathlib import Path

from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.ports import ModelReply
from focal.wiring import local_deps

AGENT = Path(__file__).resolve().parents[2] / "examples" / "guardrails" / "agent.yaml"
RULE = "acknowledge_frustration"
QUESTION = "do you offer any discounts?"  # scores between the no-intent floor and the fast path: the sensor model is asked


class Scripted:
    """A model for every purpose: scripted answers per purpose, every prompt kept."""
    spends_no_time = True  # scripted: read the same on a loaded machine (focal.turn.budget)

    def __init__(self, **answers: list[str]):
        self.answers = {p: list(a) for p, a in answers.items()}
        self.calls: list[tuple[str, str]] = []

    def available(self, purpose: str) -> bool:
        return True

    def complete(self, purpose, messages, json_schema=None) -> ModelReply:
        self.calls.append((purpose, messages[-1]["content"]))
        return ModelReply(text=self.answers[purpose].pop(0), model="fake/scripted")

    def purposes(self) -> list[str]:
        return [p for p, _ in self.calls]


def sensor_answer(reading: str | None, rule_id: str = RULE) -> str:
    conditions = [] if reading is None else [{"rule_id": rule_id, "reading": reading}]
    return json.dumps({"detected_intent": None, "intent_confidence": 0.2, "commands": [], "conditions": conditions})


def turn(tmp_path: Path, model: Scripted, message: str = QUESTION):
    deps = local_deps(str(AGENT), tmp_path / "focal.db")
    deps.model = model
    result = LocalRunner(deps).turn(TurnRequest(tenant_id="t", agent_id="guardrails", session_id="s", turn_id="1",
                                                message=message))
    record = deps.turns.list_for_session("t", "guardrails", "s")[-1]
    return result, record.state["enforce"]["report"]


DRAFT = "I can offer you 15% off your next month."
COMPLIANT = json.dumps({"verdicts": [{"rule_id": RULE, "compliant": True}]})


def test_the_sensor_is_asked_about_the_condition_and_a_not_holding_reading_spares_the_judge(tmp_path):
    model = Scripted(sensor=[sensor_answer("does_not_hold")], generate=[DRAFT])
    result, enforcement = turn(tmp_path, model)
    assert model.purposes() == ["sensor", "generate"]
    assert '"rule_id": "acknowledge_frustration"' in model.calls[0][1]  # the condition went to the sensor
    assert "The customer is upset or frustrated" in model.calls[0][1]
    assert enforcement["not_judged"] == {RULE: "the sensor model read its condition as not holding on this turn"}
    assert RULE in enforcement["checked"] and enforcement["violations"] == []
    assert result.response == DRAFT


def test_a_condition_that_holds_is_judged_and_the_judge_still_blocks(tmp_path):
    refusal = json.dumps({"verdicts": [{"rule_id": RULE, "compliant": False, "reason": "no acknowledgement"}]})
    model = Scripted(sensor=[sensor_answer("holds")], generate=["Restart the app.", "I'm sorry, that's frustrating."],
                     judge=[refusal, COMPLIANT])
    result, enforcement = turn(tmp_path, model, "the app keeps crashing, do you offer any discounts for that?")
    assert model.purposes() == ["sensor", "generate", "judge", "generate", "judge"]
    assert enforcement["not_judged"] == {}
    assert [v["rule_id"] for v in enforcement["violations"]] == [RULE]
    assert result.response == "I'm sorry, that's frustrating."


def test_depends_on_reply_or_no_reading_means_the_rule_is_judged(tmp_path):
    for i, answer in enumerate([sensor_answer("depends_on_reply"), sensor_answer(None),
                                sensor_answer("does_not_hold", rule_id="some_other_rule")]):
        model = Scripted(sensor=[answer], generate=[DRAFT], judge=[COMPLIANT])
        _, enforcement = turn(tmp_path / str(i), model)
        assert model.purposes() == ["sensor", "generate", "judge"], answer
        assert enforcement["not_judged"] == {}


def test_without_a_sensor_model_call_the_rule_is_judged(tmp_path):
    # Far from every scenario: the sensor's model is not called (sensor.no_intent_floor), so nobody read
    # the condition, and the judge decides.
    model = Scripted(generate=["Please restart the app."], judge=[COMPLIANT])
    _, enforcement = turn(tmp_path, model, "your app crashed again during my movie, I'm furious")
    assert model.purposes() == ["generate", "judge"]
    assert enforcement["not_judged"] == {}


def test_a_rule_no_answer_can_satisfy_costs_no_model_call(tmp_path):
    # premium_price_check's expression errors whatever price a draft states: no draft is asked of the
    # model, the offline draft is blocked without a judge call, and its fallback text answers at once.
    model = Scripted()
    result, enforcement = turn(tmp_path, model, "How much does the premium plan cost per month?")
    assert model.purposes() == []
    assert enforcement["regenerations"] == 0 and enforcement["fallback_used"] is True
    assert [v["rule_id"] for v in enforcement["violations"]] == ["premium_price_check"]
    assert enforcement["not_regenerated"].startswith("premium_price_check: no draft can satisfy it")
    assert enforcement["not_judged"] == {RULE: "the draft is blocked by premium_price_check, which no draft can satisfy"}
    assert "sales team" in result.response and "$12" not in result.response


def test_a_cap_some_answer_can_meet_is_drafted_judged_and_regenerated_as_before(tmp_path):
    model = Scripted(sensor=[sensor_answer("holds")],
                     generate=["Fine, 50% off for a year.", "I can offer you 20% off your next month."],
                     judge=[COMPLIANT, COMPLIANT])
    result, enforcement = turn(tmp_path, model, "I want a big discount or I'm leaving")
    assert model.purposes() == ["sensor", "generate", "judge", "generate", "judge"]
    assert enforcement["regenerations"] == 1 and enforcement["not_regenerated"] is None
    assert result.response == "I can offer you 20% off your next month."
