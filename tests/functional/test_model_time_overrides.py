"""Time for slow (local) models: FOCAL_TURN_BUDGET_S and FOCAL_MODEL_TIMEOUT_S override the agent file's
`models` settings (well beyond its 25 s, except in a Lambda); a call the budget cuts leaves the turn on
its offline path, in the trace — here through the litellm adapter itself (a fake `litellm` module,
no network). And `focal demo` uses FOCAL_MODEL / --model, as `focal chat` does."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import ValidationError

import focal.adapters.litellm_model as lm
import focal.main as cli_main
from focal.adapters.litellm_model import LiteLLMModel
from focal.config.loader import load_agent
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.settings import Settings, get_settings
from focal.turn.budget import LAMBDA_MAX_BUDGET_S, turn_budget_s
from focal.wiring import local_deps
from test_turn_budget import Clock, SlowModel  # a model that takes fake time per call, and its clock

LOCAL_ANSWER = "Standard shipping takes 3-5 business days, from the local model."

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


@pytest.fixture()
def env(monkeypatch):
    """Set FOCAL_* variables for this test (the settings are read once per process: the cache is cleared)."""
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)

    def set_(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        get_settings.cache_clear()

    get_settings.cache_clear()
    yield set_
    get_settings.cache_clear()




def run(deps, message: str):
    result = LocalRunner(deps).turn(TurnRequest(tenant_id="t1", agent_id="retail", session_id="s1", turn_id="t-1",
                                                message=message))
    return result, deps.turns.list_for_session("t1", "retail", "s1")[-1]


def test_the_turn_budget_override_lets_a_slow_local_call_finish(env, tmp_path):
    env(FOCAL_TURN_BUDGET_S="300")
    deps = local_deps(RETAIL, tmp_path / "focal.db")
    deps.clock = clock = Clock()
    deps.model = model = SlowModel(clock, {"generate"}, 90.0, LOCAL_ANSWER)  # far beyond the file's 20 s limit
    start = clock.now
    result, record = run(deps, "how long does shipping take?")
    assert record.state["deadline"] == start + 300.0
    assert model.calls == [("generate", 300.0)]  # the call got the whole budget
    assert result.degraded == [] and result.response.endswith("from the local model.")


def test_without_the_override_the_same_call_is_cut_and_the_turn_answers_offline(env, tmp_path):
    env()
    deps = local_deps(RETAIL, tmp_path / "focal.db")
    deps.clock = clock = Clock()
    deps.model = SlowModel(clock, {"generate"}, 90.0, LOCAL_ANSWER)
    result, record = run(deps, "how long does shipping take?")
    assert result.degraded == ["model_budget"] and "from the local model" not in result.response
    assert record.state["model_calls"][0]["ok"] is False and record.state["generate"]["drafts"][0]["source"] == "offline"


def test_in_a_lambda_the_turn_budget_stays_within_api_gateways_wait(env, monkeypatch):
    agent = load_agent(RETAIL)
    env()
    assert turn_budget_s(agent) == agent.models.turn_budget_s == 20.0
    env(FOCAL_TURN_BUDGET_S="240")
    assert turn_budget_s(agent) == 240.0
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "focal-acme-sensor")
    assert turn_budget_s(agent) == LAMBDA_MAX_BUDGET_S == 25.0


@pytest.mark.parametrize("name", ["FOCAL_TURN_BUDGET_S", "FOCAL_MODEL_TIMEOUT_S"])
@pytest.mark.parametrize("value", ["0", "-5", "3601", "soon"])
def test_overrides_out_of_range_are_refused(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        Settings()


class FakeLiteLLM:
    """litellm.completion that records its kwargs; `run` decides what each call does."""

    def __init__(self, run=None):
        self.kwargs: list[dict] = []
        self.run = run

    def completion(self, **kwargs):
        self.kwargs.append(kwargs)
        if self.run is not None:
            self.run(kwargs)
        message = SimpleNamespace(content="ok")
        return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=None, _hidden_params={"response_cost": 0.0})


def test_the_model_timeout_override_reaches_every_attempt_within_the_time_left(env, monkeypatch):
    fake = FakeLiteLLM()
    monkeypatch.setattr(lm, "_litellm", lambda: fake)
    model = LiteLLMModel("openai/local", warm=False, timeout_s=20.0)
    env()
    model.complete("generate", [])
    env(FOCAL_MODEL_TIMEOUT_S="90")
    model.complete("generate", [])
    model.configured(total_s=45.0).complete("generate", [])  # the turn's time left still bounds it
    timeouts = [k["timeout"] for k in fake.kwargs]
    assert timeouts[:2] == [20.0, 90.0] and 44.0 < timeouts[2] <= 45.0


class Timeout(Exception):
    """Named as litellm's timeout is (retryable)."""


def test_a_call_the_budget_cuts_in_the_litellm_adapter_leaves_the_turn_offline_in_the_trace(env, monkeypatch, tmp_path):
    env()
    deps = local_deps(RETAIL, tmp_path / "focal.db")
    deps.clock = clock = Clock()
    start = clock.now

    def hang(kwargs):  # the provider answers nothing within the time it was given
        clock.now += kwargs["timeout"]
        raise Timeout("read timed out")

    fake = FakeLiteLLM(hang)
    monkeypatch.setattr(lm, "_litellm", lambda: fake)
    deps.model = LiteLLMModel("openai/local", warm=False)
    deps.model.sleep = lambda s: None
    result, record = run(deps, "how long does shipping take?")
    assert fake.kwargs and all(k["timeout"] <= 20.0 for k in fake.kwargs)  # never more than the budget
    calls = record.state["model_calls"]
    assert len(calls) == 1 and calls[0]["ok"] is False and calls[0]["note"].startswith("Timeout from model provider")
    assert clock.now - start >= 20.0 and "model_budget" in result.degraded  # nothing else was started
    assert result.success and record.state["generate"]["drafts"][0]["source"] == "offline" and "3-5 business days" in result.response


def test_demo_uses_focal_model_as_chat_does(env, monkeypatch, capsys):
    monkeypatch.setenv("FOCAL_MODEL", "openai/demo-model")
    asked: list[str | None] = []

    def runner(agent, db, model, tenant="local"):
        asked.append(model)
        return SimpleNamespace(turn=lambda request: (_ for _ in ()).throw(SystemExit(0)))  # stop at the first turn

    monkeypatch.setattr(cli_main, "_runner", runner)
    with pytest.raises(SystemExit):
        cli_main.main(["demo", str(RETAIL)])
    assert asked == ["openai/demo-model"]
    assert "model openai/demo-model" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli_main.main(["demo", str(RETAIL), "--model", "openai/other"])
    assert asked[-1] == "openai/other"
    monkeypatch.delenv("FOCAL_MODEL")
    with pytest.raises(SystemExit):
        cli_main.main(["demo", str(RETAIL)])
    assert asked[-1] is None and "no model, no network" in capsys.readouterr().out
