"""Provider credentials in AWS: the tenant's Secrets Manager secret focal/<tenant>/model_api_key is read at
init (deps_from_settings with the DynamoDB stores, on moto) and handed to litellm as `api_key`; Bedrock
models get none; the value never reaches a log line or an error."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import boto3
import pytest

import focal.adapters.litellm_model as lm
from focal.models.agent import AgentConfig
from store_fixtures import TABLES, mocked_dynamodb

SECRET = "sk-live-0123456789abcdef"


class FakeLiteLLM:
    def __init__(self, fail: bool = False):
        self.kwargs: list[dict] = []
        self.fail = fail

    def completion(self, **kwargs):
        self.kwargs.append(kwargs)
        if self.fail:
            raise PermissionError(f"Incorrect API key provided: {kwargs.get('api_key')}")
        message = SimpleNamespace(content="ok")
        return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=None, _hidden_params={"response_cost": 0.0})


@pytest.fixture
def aws_deps(monkeypatch):
    from focal import settings as settings_module

    def build(model: str):
        monkeypatch.setenv("FOCAL_MODEL", model)
        settings_module.get_settings.cache_clear()
        from focal.wiring import deps_from_settings

        return deps_from_settings(settings_module.get_settings())

    with mocked_dynamodb(monkeypatch):
        for key, value in {"FOCAL_STORE": "dynamodb", "FOCAL_CONFIG_SOURCE": "dynamodb", "FOCAL_TENANT": "acme",
                           "FOCAL_SESSIONS_TABLE": TABLES["sessions"], "FOCAL_PROFILES_TABLE": TABLES["profiles"],
                           "FOCAL_TURNS_TABLE": TABLES["turns"], "FOCAL_CONFIG_TABLE": TABLES["config"]}.items():
            monkeypatch.setenv(key, value)
        secrets = boto3.client("secretsmanager", region_name="us-east-1")
        secrets.create_secret(Name="focal/acme/model_api_key", SecretString=SECRET)
        secrets.create_secret(Name="focal/other/model_api_key", SecretString="sk-other-tenant")
        yield build
    settings_module.get_settings.cache_clear()


def agent() -> AgentConfig:
    return AgentConfig(id="a", name="a")


def test_the_tenants_secret_is_read_at_init_and_passed_as_api_key(aws_deps, monkeypatch, caplog):
    caplog.set_level(logging.INFO)  # a function's log level (botocore's own DEBUG lines print response bodies)
    caplog.set_level(logging.DEBUG, logger="focal")
    deps = aws_deps("openai/gpt-4o-mini")
    fake = FakeLiteLLM()
    monkeypatch.setattr(lm, "_litellm", lambda: fake)
    deps.llm(agent()).complete("generate", [{"role": "user", "content": "hi"}])
    assert fake.kwargs[0]["api_key"] == SECRET  # this tenant's, not another's
    assert SECRET not in caplog.text and SECRET not in repr(deps.model.__dict__)


def test_bedrock_needs_no_key(aws_deps, monkeypatch):
    deps = aws_deps("bedrock/anthropic.claude-3-haiku-20240307-v1:0")
    fake = FakeLiteLLM()
    monkeypatch.setattr(lm, "_litellm", lambda: fake)
    deps.llm(agent()).complete("generate", [])
    assert "api_key" not in fake.kwargs[0]


def test_a_provider_error_quoting_the_key_is_not_logged_or_kept(aws_deps, monkeypatch, caplog):
    from focal.errors import ModelError

    caplog.set_level(logging.INFO)  # a function's log level (botocore's own DEBUG lines print response bodies)
    caplog.set_level(logging.DEBUG, logger="focal")
    deps = aws_deps("openai/gpt-4o-mini")
    monkeypatch.setattr(lm, "_litellm", lambda: FakeLiteLLM(fail=True))
    with pytest.raises(ModelError) as caught:
        deps.llm(agent()).complete("generate", [])
    assert SECRET not in str(caught.value) and caught.value.__cause__ is None and SECRET not in caplog.text


def test_locally_no_secret_is_read():
    from focal.adapters.secrets import EnvSecretSource
    from focal.settings import Settings
    from focal.wiring import provider_key

    assert provider_key(Settings(model="openai/gpt-4o-mini"), EnvSecretSource(), in_aws=False) is None
