"""The agent's `models` settings reach every call: Deps.llm configures the model (FOCAL_MODEL or the
agent's own), and the litellm adapter retries with backoff on timeouts, 5xx and throttling only, within
the call's total time, with the provider key from the secret (never for Bedrock)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import focal.adapters.litellm_model as lm
from focal.adapters.litellm_model import LiteLLMModel, ProviderKey
from focal.errors import ModelError
from focal.models.agent import AgentConfig, ModelSettings
from focal.turn.deps import Deps


class Status(Exception):
    def __init__(self, status: int):
        super().__init__(f"status {status}")
        self.status_code = status


class FakeLiteLLM:
    """litellm.completion answering from a script: an exception to raise or a text."""

    def __init__(self, script):
        self.script = list(script)
        self.kwargs: list[dict] = []
        self.before = lambda kwargs: None  # what the network does first (a test's clock moving on)

    def completion(self, **kwargs):
        self.kwargs.append(kwargs)
        self.before(kwargs)
        item = self.script.pop(0)
        if isinstance(item, Exception):
            raise item
        message = SimpleNamespace(content=item)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=None, _hidden_params={"response_cost": 0.0})


@pytest.fixture
def fake_litellm(monkeypatch):
    def install(script):
        fake = FakeLiteLLM(script)
        monkeypatch.setattr(lm, "_litellm", lambda: fake)
        return fake
    return install


def model(**kw) -> LiteLLMModel:
    m = LiteLLMModel("openai/gpt-4o-mini", warm=False, **kw)
    m.sleep = lambda s: None
    return m


@pytest.mark.parametrize("failure", [Status(429), Status(503), Status(500), TimeoutError("read timed out")])
def test_retryable_failures_are_retried_with_the_configured_settings(fake_litellm, failure):
    fake = fake_litellm([failure, "ok"])
    reply = model(retries=1, timeout_s=7.0, temperature=0.3).complete("generate", [{"role": "user", "content": "hi"}])
    assert reply.text == "ok" and len(fake.kwargs) == 2
    first = fake.kwargs[0]
    assert first["timeout"] == 7.0 and first["temperature"] == 0.3
    assert first["num_retries"] == 0 and first["max_retries"] == 0  # litellm's and the SDK's own retries are off


@pytest.mark.parametrize("failure", [Status(400), Status(401), Status(404), ValueError("bad")])
def test_client_errors_are_not_retried(fake_litellm, failure):
    fake = fake_litellm([failure, "ok"])
    with pytest.raises(ModelError):
        model(retries=3).complete("generate", [])
    assert len(fake.kwargs) == 1


def test_retries_stop_at_the_count_and_the_error_names_only_the_type(fake_litellm):
    fake = fake_litellm([Status(503)] * 5)
    with pytest.raises(ModelError) as caught:
        model(retries=2).complete("generate", [])
    assert len(fake.kwargs) == 3 and str(caught.value) == "Status from model provider after 3 attempts"
    assert caught.value.__cause__ is None  # the provider's message (which may quote a key) is not chained


def test_the_total_time_bounds_every_attempt_and_leaves_no_room_for_a_retry(fake_litellm):
    fake = fake_litellm([Status(503), "ok"])
    with pytest.raises(ModelError):
        model(retries=2, timeout_s=20.0).configured(total_s=0.6).complete("generate", [])
    assert len(fake.kwargs) == 1 and fake.kwargs[0]["timeout"] <= 0.6  # min(timeout_s, time left)


class FakeTime:
    """The adapter's clock; an attempt that times out has waited its whole timeout on it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(("total_s", "attempts"), [(150.0, 1), (175.0, 1), (200.0, 2)])
def test_a_timed_out_attempt_is_retried_only_when_the_retry_leaves_the_turn_as_much_as_it_takes(fake_litellm, total_s,
                                                                                               attempts):
    """60 s per attempt: after a timeout the retry needs 60 s again, and may take only half of what is left after it
    (with 150 or 175 s the retry would leave the rest of the turn less than it takes)."""
    clock = FakeTime()
    fake = fake_litellm([TimeoutError("read timed out"), TimeoutError("read timed out")])
    fake.before = lambda kwargs: setattr(clock, "now", clock.now + kwargs["timeout"])
    m = model(retries=1, timeout_s=60.0).configured(total_s=total_s)
    m.clock = clock
    with pytest.raises(ModelError):
        m.complete("generate", [])
    assert [k["timeout"] for k in fake.kwargs] == [60.0] * attempts


def test_a_quick_provider_error_is_retried_with_at_most_half_of_the_time_left(fake_litellm):
    fake = fake_litellm([Status(503), "ok"])
    reply = model(retries=1, timeout_s=20.0).configured(total_s=20.0).complete("generate", [])
    assert reply.text == "ok" and fake.kwargs[0]["timeout"] <= 20.0 and 9.0 < fake.kwargs[1]["timeout"] <= 10.0


def test_the_provider_key_is_passed_for_keyed_providers_and_never_for_bedrock(fake_litellm):
    reads: list[str] = []

    class Secrets:
        def get(self, name):
            reads.append(name)
            return "sk-test-secret"

    key = ProviderKey(Secrets(), "model_api_key")
    fake = fake_litellm(["ok", "ok"])
    model(key_for=key).complete("generate", [])
    LiteLLMModel("bedrock/anthropic.claude-3-haiku-20240307-v1:0", warm=False, key_for=key).complete("generate", [])
    assert fake.kwargs[0]["api_key"] == "sk-test-secret" and "api_key" not in fake.kwargs[1]
    assert reads == ["model_api_key"] and "sk-test" not in repr(key)


def test_a_missing_secret_is_not_read_again_at_every_call():
    reads: list[str] = []

    class Empty:
        def get(self, name):
            reads.append(name)
            return None

    key = ProviderKey(Empty(), "model_api_key")
    assert key("openai/gpt-4o-mini") is None and key("openai/gpt-4o-mini") is None and reads == ["model_api_key"]


def agent(**models) -> AgentConfig:
    return AgentConfig(id="a", name="a", models=ModelSettings(**models))


def deps(model, factory=None) -> Deps:
    return Deps(configs=None, sessions=None, profiles=None, turns=None, embedder=None, rule_index=None,  # type: ignore[arg-type]
                model=model, tools=None, model_factory=factory)  # type: ignore[arg-type]


def test_focal_model_gets_the_agents_settings_and_is_cached_per_settings():
    d = deps(LiteLLMModel("openai/gpt-4o-mini", warm=False))
    first = d.llm(agent(timeout_s=9.0, temperature=0.5, retries=2))
    assert (first.timeout_s, first.temperature, first.retries, first.model) == (9.0, 0.5, 2, "openai/gpt-4o-mini")
    assert d.llm(agent(timeout_s=9.0, temperature=0.5, retries=2)) is first
    assert d.llm(agent(timeout_s=3.0)) is not first and d.llm(agent(timeout_s=3.0)).timeout_s == 3.0


def test_an_agent_named_model_is_built_with_its_settings():
    made: list[tuple] = []

    def factory(name, **settings):
        made.append((name, settings))
        return LiteLLMModel(name, warm=False, **settings)

    d = deps(LiteLLMModel(None, warm=False), factory)
    m = d.llm(agent(model="anthropic/claude-3-5-haiku", timeout_s=12.0, retries=0))
    assert m.model == "anthropic/claude-3-5-haiku" and m.timeout_s == 12.0 and m.retries == 0
    d.llm(agent(model="anthropic/claude-3-5-haiku", timeout_s=12.0, retries=0))
    assert made == [("anthropic/claude-3-5-haiku", {"timeout_s": 12.0, "temperature": 0.0, "retries": 0})]


def test_shipped_defaults_are_bounded():
    s = ModelSettings()
    assert (s.timeout_s, s.retries, s.turn_budget_s) == (20.0, 1, 20.0)
    with pytest.raises(ValueError):
        ModelSettings(retries=10)
    with pytest.raises(ValueError):
        ModelSettings(turn_budget_s=60)
