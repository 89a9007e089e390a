"""Where Focal's AWS clients find their region (focal.adapters.aws): AWS_REGION, AWS_DEFAULT_REGION, the
profile's region, in that order; an explicit region wins; none at all is one clear error, and the CLI says it
in one line."""

from __future__ import annotations

import boto3
import pytest

from focal.adapters import aws


@pytest.fixture
def no_aws(monkeypatch, tmp_path):
    """No AWS variable and an empty AWS config; boto3's default session rebuilt from it."""
    import os

    for key in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(key)
    config = tmp_path / "config"
    config.write_text("[default]\n[profile ops]\nregion = ap-south-1\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    return monkeypatch


@pytest.mark.parametrize("env,expected", [
    ({"AWS_REGION": "eu-west-1"}, "eu-west-1"),
    ({"AWS_DEFAULT_REGION": "eu-central-1"}, "eu-central-1"),
    ({"AWS_PROFILE": "ops"}, "ap-south-1"),
    ({"AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "us-east-1", "AWS_PROFILE": "ops"}, "eu-west-1"),
    ({"AWS_DEFAULT_REGION": "us-east-1", "AWS_PROFILE": "ops"}, "us-east-1"),
])
def test_region_precedence(no_aws, env, expected):
    for key, value in env.items():
        no_aws.setenv(key, value)
    assert aws.region() == expected
    assert aws.client("dynamodb").meta.region_name == expected
    assert aws.session().region_name == expected
    assert aws.client("dynamodb", region_name="sa-east-1").meta.region_name == "sa-east-1"


def test_no_region_anywhere_is_a_clear_error(no_aws):
    assert aws.region() is None
    with pytest.raises(aws.AwsSetupError, match="set AWS_REGION"):
        aws.client("dynamodb")


def test_every_adapter_client_takes_aws_region(no_aws):
    """The adapters that make clients themselves: each in AWS_REGION (boto3 alone would find none)."""
    from focal.adapters.api_keys import DynamoApiKeyStore
    from focal.adapters.dynamodb_store import dynamodb_client
    from focal.adapters.eventbridge_events import EventBridgeEventSink
    from focal.adapters.lambda_tools import _boto3_client
    from focal.adapters.secrets import SecretsManagerSource
    from focal.adapters.stepfunctions_approvals import StepFunctionsApprovalWorkflow
    from focal.wiring import dynamodb_idempotency

    no_aws.setenv("AWS_REGION", "eu-west-1")
    workflow = StepFunctionsApprovalWorkflow("sessions")
    clients = [dynamodb_client(), DynamoApiKeyStore("keys")._client, EventBridgeEventSink("bus")._client,
               _boto3_client(5.0), SecretsManagerSource("focal/acme/").client(), workflow._sfn, workflow._ddb,
               dynamodb_idempotency("idem").store._client]
    assert [c.meta.region_name for c in clients] == ["eu-west-1"] * len(clients)


def test_the_cli_says_a_missing_region_in_one_line(no_aws, capsys):
    from focal.main import main

    assert main(["keys", "list", "--table", "Focal-acme-ApiKeys"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "focal keys list: no AWS region: set AWS_REGION (or AWS_DEFAULT_REGION, or a region in your AWS profile)"]


def test_aws_errors_are_one_line_others_are_not_aws_problems():
    from botocore.exceptions import ClientError, NoCredentialsError

    assert aws.problem(NoCredentialsError()) == aws.NO_CREDENTIALS
    refused = ClientError({"Error": {"Code": "ResourceNotFoundException", "Message": "Requested resource not found"}},
                          "PutItem")
    assert aws.problem(refused) == "AWS refused PutItem: ResourceNotFoundException: Requested resource not found"
    assert aws.problem(ValueError("x")) is None


def test_no_code_makes_boto3_clients_but_the_one_place():
    """A client made elsewhere would again ignore AWS_REGION outside Lambda."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    pattern = re.compile(r"boto3\.(client|resource|Session|session\.Session)\(|DynamoDBPersistenceLayer\((?![^)]*boto3_client)")
    offenders = [str(path.relative_to(root)) for folder in ("functions", "infra") for path in (root / folder).rglob("*.py")
                 if path.name != "aws.py" and pattern.search(path.read_text(encoding="utf-8"))]
    assert offenders == []
