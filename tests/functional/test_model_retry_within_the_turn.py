"""A slow local model never spends the turn on one stage's retries: a timed-out sensor call is retried only when the
retry leaves the rest of the turn as much time as it takes, so the generation call still gets its whole attempt and
the turn answers inside FOCAL_TURN_BUDGET_S with the offline reading.

Seen live (Qwen2.5-Coder-1.5B on a loaded two-core machine, FOCAL_MODEL_TIMEOUT_S=150, FOCAL_TURN_BUDGET_S=400): the
sensor's call timed out twice ("Timeout from model provider after 2 attempts", 303 s), and the generation call got
the 85 s that were left, too little, and timed out too. The network is faked behind the litellm adapter (a fake
`litellm` module whose calls take fake time on the turn's clock); the adapter, the budget and the pipeline are real.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

import focal.adapters.litellm_model as lm
from focal.adapters.litellm_model import LiteLLMModel
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.settings import get_settings
from focal.wiring import local_deps
from test_turn_budget import Clock

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"
UNSURE = "ok but what about the thing with the parcel then"  # the offline reader is unsure: the sensor asks the model
DRAFT = json.dumps({"text": "Could you tell me which parcel you mean? An order number helps.", "commitments": {}})


class Timeout(Exception):
    """Named as litellm's timeout is."""


class SlowNetwork:
    """litellm's `completion`: the sensor's call never answers (it takes the whole time it is given, then times out),
    the generation call answers after `generate_s` of the turn's (fake) time when it was given that long."""

    def __init__(self, clock: Clock, generate_s: float):
        self.clock, self.generate_s = clock, generate_s
        self.calls: list[tuple[str, float]] = []  # (purpose, the attempt's timeout)

    def completion(self, **kwargs):
        purpose = "sensor" if "detected_intent" in json.dumps(kwargs.get("response_format")) else "generate"
        self.calls.append((purpose, kwargs["timeout"]))
        if purpose == "sensor" or self.generate_s > kwargs["timeout"]:
            self.clock.now += kwargs["timeout"]
            raise Timeout("read timed out")
        self.clock.now += self.generate_s
        message = SimpleNamespace(content=DRAFT)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=None, _hidden_params={"response_cost": 0.0})


@pytest.fixture()
def slow(monkeypatch, tmp_path):
    """A turn runner with the litellm adapter over a slow fake network, FOCAL_MODEL_TIMEOUT_S and FOCAL_TURN_BUDGET_S
    set as for a local model."""
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)

    def make(timeout_s: str, budget_s: str, generate_s: float):
        monkeypatch.setenv("FOCAL_MODEL_TIMEOUT_S", timeout_s)
        monkeypatch.setenv("FOCAL_TURN_BUDGET_S", budget_s)
        get_settings.cache_clear()
        clock = Clock()
        network = SlowNetwork(clock, generate_s)
        monkeypatch.setattr(lm, "_litellm", lambda: network)
        deps = local_deps(RETAIL, tmp_path / "focal.db")
        deps.clock = clock
        deps.model = LiteLLMModel("openai/local", warm=False)  # the shipped retries: 1
        deps.model.clock = clock
        deps.model.sleep = lambda s: setattr(clock, "now", clock.now + s)
        return deps, network

    yield make
    get_settings.cache_clear()


def _turn(deps):
    result = LocalRunner(deps).turn(TurnRequest(tenant_id="t1", agent_id="retail", session_id="s1", turn_id="t-1",
                                                message=UNSURE))
    return result, deps.turns.list_for_session("t1", "retail", "s1")[-1]


def test_a_timed_out_sensor_call_is_not_retried_at_the_cost_of_the_generation_call(slow):
    deps, network = slow("60", "150", generate_s=45.0)
    result, record = _turn(deps)
    # one sensor attempt; a retry would have left the generation call 30 s, less than the 45 s it needs
    assert network.calls == [("sensor", 60.0), ("generate", 60.0)]
    sensor_call = record.state["model_calls"][0]
    assert sensor_call["purpose"] == "sensor" and sensor_call["note"] == "Timeout from model provider"
    assert any("offline reading kept" in n for n in record.state["sensor"]["context"]["notes"])
    assert result.success and result.degraded == []
    assert result.response == json.loads(DRAFT)["text"]  # the model's draft, checked, passed


def test_with_time_to_spare_the_timed_out_call_is_retried(slow):
    """The retry is decided from the time left, not by a count alone: with 400 s, the sensor's retry (60 s) leaves
    the generation call far more than it takes."""
    deps, network = slow("60", "400", generate_s=45.0)
    result, _ = _turn(deps)
    assert network.calls == [("sensor", 60.0), ("sensor", 60.0), ("generate", 60.0)]
    assert result.response == json.loads(DRAFT)["text"]


def test_a_model_slower_than_every_attempt_leaves_the_offline_answer_inside_the_budget(slow, tmp_path):
    """Nothing answers: each stage tries once with what it may take, no retry eats the rest, and the customer gets
    what the turn says with no model, the turn's model time within FOCAL_TURN_BUDGET_S."""
    offline, _ = _turn(local_deps(RETAIL, tmp_path / "offline.db"))
    deps, network = slow("60", "150", generate_s=1000.0)
    result, record = _turn(deps)
    assert network.calls == [("sensor", 60.0), ("generate", 60.0)]
    assert sum(timeout for _, timeout in network.calls) <= 150.0
    assert result.success and record.state["generate"]["drafts"][0]["source"] == "offline"
    assert result.response == offline.response
