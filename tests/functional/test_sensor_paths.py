"""The sensor's three paths with a model configured: fast path (no call), model call, and the
offline fallback after an invalid answer, a timeout or a provider error. The model is a fake behind
the `LanguageModel` port (the provider's network is the boundary); everything else is real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from example_tools import reset_state

from focal.errors import ModelError
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.ports import ModelReply
from focal.wiring import local_deps

AGENT = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


class FakeModel:
    """Answers the sensor from a script (a string, or an exception to raise); nothing else."""
    spends_no_time = True  # scripted: read the same on a loaded machine (focal.turn.budget)

    def __init__(self, script: list[str | Exception] | None = None):
        self.script = list(script or [])
        self.calls: list[list[dict[str, str]]] = []

    def available(self, purpose: str) -> bool:
        return purpose == "sensor"

    def complete(self, purpose, messages, json_schema=None) -> ModelReply:
        self.calls.append(messages)
        item = self.script.pop(0) if self.script else ModelError("nothing scripted")
        if isinstance(item, Exception):
            raise item
        return ModelReply(text=item, model="fake/sensor", input_tokens=10, output_tokens=5)


@pytest.fixture
def make_runner(tmp_path):
    def make(model: FakeModel) -> LocalRunner:
        deps = local_deps(AGENT, tmp_path / f"focal-{id(model)}.db")
        deps.model = model
        reset_state(deps.configs.get_agent("t1", "retail"), "t1")
        return LocalRunner(deps)

    return make


def say(runner: LocalRunner, message: str, n: int, session: str = "s1", customer: str = "c-100"):
    """A turn of `customer` (the tools show a customer their own orders only: A1001 is c-100's, A1004 c-200's)."""
    result = runner.turn(TurnRequest(tenant_id="t1", agent_id="retail", session_id=session, customer_id=customer,
                                     turn_id=f"{session}-{n}", message=message))
    record = runner.deps.turns.list_for_session("t1", "retail", session)[-1]
    return result, record.state["sensor"]["context"]


def test_confident_offline_readings_skip_the_model(make_runner):
    model = FakeModel()
    runner = make_runner(model)
    for n, message in enumerate(["I want a refund for my order", "A1001", "yes"]):
        result, context = say(runner, message, n)
        assert result.model_calls == 0
        assert context["fast_path"] is True
        assert any("model call skipped" in note for note in context["notes"])
    assert model.calls == []


def test_a_question_the_offline_sensor_cannot_place_goes_to_the_model_once(make_runner):
    answer = {"detected_intent": "order_status", "intent_confidence": 0.9, "commands": [
        {"name": "StartFlow", "flow": "order_status", "value": 0.9},
        {"name": "SetSlot", "flow": "order_status", "slot": "order_id", "value": "A1004"}]}
    model = FakeModel([json.dumps(answer)])
    runner = make_runner(model)
    result, context = say(runner, "my stuff from last week, A1004, what gives", 0, customer="c-200")
    assert len(model.calls) == 1 and result.model_calls == 1
    assert context["source"] == "model" and context["fast_path"] is False
    assert any(note.startswith("model called:") for note in context["notes"])
    assert result.scenario == {"id": "order_status", "step_id": "report_status"}
    assert "processing" in result.response


def test_the_prompt_carries_the_active_flow_the_asked_slot_scenarios_and_fields(make_runner):
    model = FakeModel([json.dumps({"commands": []})])
    runner = make_runner(model)
    say(runner, "I want a refund for my order", 0)  # fast path
    say(runner, "hmm, which number is that, the one on the receipt?", 1)
    last = model.calls[0][-1]
    assert last["role"] == "user" and last["content"].startswith('<data name="turn">')
    turn = json.loads(last["content"].split("\n", 1)[1].rsplit("\n</data>", 1)[0])
    brief = turn["context"]
    assert turn["customer_message"] == "hmm, which number is that, the one on the receipt?"
    assert [m["role"] for m in model.calls[0][1:-1]] == ["user", "assistant"]  # the earlier turn, as data
    assert brief["active_flow"] == "refund" and brief["asking_for_slots"] == ["order_id"]
    assert {s["id"] for s in brief["scenarios"]} == {"refund", "order_status", "change_address"}
    assert "order_id" in {f["name"] for f in brief["fields"]}


def test_an_invalid_answer_gets_one_repair_then_the_offline_reading_is_used(make_runner):
    model = FakeModel(["not json", '{"intent_confidence": 7}'])
    runner = make_runner(model)
    result, context = say(runner, "how long does shipping take?", 0)
    assert len(model.calls) == 2  # the answer and one repair, no more
    assert "invalid" in model.calls[1][-1]["content"]
    assert context["source"] == "offline"
    assert any("invalid after one repair" in note for note in context["notes"])
    assert result.success and "3-5 business days" in result.response


@pytest.mark.parametrize("failure", [ModelError("Timeout from model provider"), ModelError("APIError 503")])
def test_timeouts_and_provider_errors_never_crash_a_turn(make_runner, failure):
    model = FakeModel([failure])
    runner = make_runner(model)
    result, context = say(runner, "how long does shipping take?", 0)
    assert result.success and result.error is None
    assert context["source"] == "offline"
    assert any("sensor model failed" in note for note in context["notes"])
    assert "3-5 business days" in result.response
