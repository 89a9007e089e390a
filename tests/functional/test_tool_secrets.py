"""Secret sources for `${secret:NAME}`: the environment (only FOCAL_SECRET_* variables), and
Secrets Manager / SSM under the tenant's prefix (moto), cached, never logged."""

from __future__ import annotations

import logging

import boto3
import pytest
from moto import mock_aws

from focal.adapters.secrets import EnvSecretSource, SecretsManagerSource, SsmParameterSource, env_name, secret_source


def test_the_environment_source_reads_only_focal_secret_variables(monkeypatch):
    monkeypatch.setenv("FOCAL_SECRET_STORE_API_KEY", "k-1")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "never")
    source = EnvSecretSource()
    assert env_name("store/api-key") == "FOCAL_SECRET_STORE_API_KEY"
    assert source.get("store/api-key") == "k-1" and source.get("store_api_key") == "k-1"
    assert source.get("AWS_SECRET_ACCESS_KEY") is None  # an agent file cannot read the process's own secrets
    assert EnvSecretSource({"FOCAL_SECRET_X": ""}).get("x") is None


@pytest.fixture
def aws(monkeypatch):
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_SESSION_TOKEN": "testing", "AWS_DEFAULT_REGION": "eu-west-1"}.items():
        monkeypatch.setenv(key, value)
    with mock_aws():
        yield


def test_secrets_manager_reads_under_the_tenant_prefix_and_caches(aws, caplog):
    caplog.set_level(logging.DEBUG, logger="focal")  # botocore's own DEBUG log prints responses: keep it off in production
    sm = boto3.client("secretsmanager")
    sm.create_secret(Name="focal/t1/store-api", SecretString="sm-value-1")
    sm.create_secret(Name="focal/t2/store-api", SecretString="other-tenant")
    now = [0.0]
    source = SecretsManagerSource(prefix="focal/t1/", ttl_s=60, clock=lambda: now[0])
    assert source.get("store-api") == "sm-value-1"
    sm.put_secret_value(SecretId="focal/t1/store-api", SecretString="sm-value-2")
    assert source.get("store-api") == "sm-value-1"  # cached
    now[0] = 61
    assert source.get("store-api") == "sm-value-2"  # refreshed after the TTL
    assert source.get("missing") is None
    assert "sm-value" not in caplog.text and "other-tenant" not in caplog.text
    assert "missing" in caplog.text  # the name of an unreadable secret is logged, never a value


def test_ssm_reads_secure_parameters(aws):
    boto3.client("ssm").put_parameter(Name="/focal/t1/store-api", Value="ssm-value", Type="SecureString")
    assert SsmParameterSource(prefix="focal/t1/").get("store-api") == "ssm-value"


def test_the_source_is_the_environment_locally_and_secrets_manager_in_aws():
    assert isinstance(secret_source(aws=False), EnvSecretSource)
    aws_source = secret_source(aws=True, tenant="acme")
    assert isinstance(aws_source, SecretsManagerSource) and aws_source.key("api") == "focal/acme/api"
