"""The deploy path: `-c` context read by infra/app.py, `make deploy`'s dry run into a kept folder, the
preflight checks, the options that make a retry and a redeploy work, and the stack outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import aws_cdk as cdk
import pytest

from infra_helpers import of_type

ROOT = Path(__file__).resolve().parents[2]


# --- infra/app.py ---------------------------------------------------------------------------
def test_app_reads_context_and_output_from_the_command_line():
    from app import parse_args

    assert parse_args(["-c", "tenant=acme", "--context", "model=bedrock/x:1", "-o", "out/acme"]) == (
        {"tenant": "acme", "model": "bedrock/x:1"}, "out/acme")
    assert parse_args(["--context=aws:cdk:bundling-stacks=[]"]) == ({"aws:cdk:bundling-stacks": []}, None)
    for bad in (["-c"], ["-c", "tenant"], ["--tenant", "acme"], ["acme"]):
        with pytest.raises(SystemExit):
            parse_args(bad)


@pytest.mark.slow
def test_the_deploy_dry_run_synthesizes_the_tenant_into_a_kept_folder_with_cdk_nag(tmp_path):
    """What `make synth TENANT=ci-dry` runs (bundling skipped here: it downloads wheels), as a separate
    process with the system's view of the command line: -c is read, nag applies, the folder stays."""
    out = tmp_path / "cdk.out" / "ci-dry"
    env = {k: v for k, v in os.environ.items() if k not in ("CDK_OUTDIR", "CDK_CONTEXT_JSON")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "infra" / "app.py"), "-c", "tenant=ci-dry", "-c", "aws:cdk:bundling-stacks=[]",
         "-c", "model=bedrock/anthropic.claude-3-haiku-20240307-v1:0", "-o", str(out)],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    template = json.loads((out / "Focal-ci-dry.template.json").read_text())
    assert "Focal-ci-dry.template.json" in proc.stdout
    outputs = template["Outputs"]
    assert "--tenant ci-dry --scope admin" in json.dumps(outputs["CreateAdminKeyCommand"])
    report = out / "validation-report.json"
    assert not report.exists() or json.loads(report.read_text())["pluginReports"] == []
    assert any(fn["Properties"].get("Environment", {}).get("Variables", {}).get("FOCAL_MODEL")
               for fn in of_type(template["Resources"], "AWS::Lambda::Function").values())


# --- options --------------------------------------------------------------------------------
def _synth(**context):
    from focal_infra.stack import FocalStack
    from focal_infra.testing import NO_BUNDLING, cdk_json_context

    app = cdk.App(outdir=tempfile.mkdtemp(prefix="focal-opt-"),
                  context={**cdk_json_context(), **NO_BUNDLING, "tenant": "acme", **context})
    FocalStack(app, "Focal-acme", tenant="acme")
    return app.synth().get_stack_by_name("Focal-acme").template


def test_no_logging_role_by_default_and_one_on_request(resources):
    assert not of_type(resources, "AWS::ApiGateway::Account")
    with_role = _synth(createApiGatewayLogsRole="true", opensearchDomainName="acme-index-2",
                       removeDataOnDestroy="true")["Resources"]
    (account,) = of_type(with_role, "AWS::ApiGateway::Account").values()
    role = account["Properties"]["CloudWatchRoleArn"]["Fn::GetAtt"][0]
    assert with_role[role]["DeletionPolicy"] == "Retain"  # other stacks' stages rely on it
    (domain,) = of_type(with_role, "AWS::OpenSearchService::Domain").values()
    assert domain["Properties"]["DomainName"] == "acme-index-2"
    assert {t["DeletionPolicy"] for t in of_type(with_role, "AWS::DynamoDB::Table").values()} == {"Delete"}


@pytest.mark.parametrize("context", [{"createApiGatewayLogsRole": "yes"}, {"opensearchDomainName": "Bad_Name"},
                                     {"alarmTopicArn": "not-an-arn"}, {"removeDataOnDestroy": "1"}])
def test_invalid_options_are_refused_with_their_name(context):
    with pytest.raises(ValueError, match=next(iter(context))):
        _synth(**context)


def test_state_machine_logs_live_under_vendedlogs_and_go_with_the_stack(resources):
    machines = of_type(resources, "AWS::StepFunctions::StateMachine").values()
    names = set()
    for machine in machines:
        (dest,) = machine["Properties"]["LoggingConfiguration"]["Destinations"]
        group = resources[dest["CloudWatchLogsLogGroup"]["LogGroupArn"]["Fn::GetAtt"][0]]
        names.add(group["Properties"]["LogGroupName"])
        assert group["DeletionPolicy"] == "Delete"
    assert names == {"/aws/vendedlogs/states/focal-acme-turns", "/aws/vendedlogs/states/focal-acme-approvals"}


# --- outputs ----------------------------------------------------------------------------------
def test_outputs_name_the_endpoint_the_tables_and_the_first_admin_key_command(template_json, resources):
    outputs = template_json["Outputs"]
    assert {"ApiEndpoint", "TurnUrlTemplate", "ApiKeysTableName", "SessionsTableName", "AgentConfigTableName",
            "CreateAdminKeyCommand", "ModelSecretName", "DashboardName"} <= set(outputs)
    sep, parts = outputs["CreateAdminKeyCommand"]["Value"]["Fn::Join"]
    keys_table = next(lid for lid in resources if lid.startswith("ApiKeysTable"))
    assert parts == ["AWS_REGION=", {"Ref": "AWS::Region"}, " focal keys create --table ", {"Ref": keys_table},
                     " --tenant acme --scope admin --label first-admin"]
    assert "secret" not in json.dumps([o["Value"] for k, o in outputs.items() if k != "ModelSecretName"
                                       and k != "CustomerTokenSecretName"]).lower()


def test_the_keys_cli_accepts_the_output_command():
    """The printed command parses with `focal keys create` as it exists (functions/focal/cli/keys.py)."""
    import argparse

    from focal.cli.keys import add_parser

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["keys", "create", "--table", "T", "--tenant", "acme", "--scope", "admin",
                              "--label", "first-admin"])
    assert (args.table, args.tenant, args.scope) == ("T", "acme", ["admin"])


# --- preflight --------------------------------------------------------------------------------
class FakeSession:
    def __init__(self, region="eu-west-1", toolkit="CREATE_COMPLETE", role="arn:aws:iam::1:role/apigw"):
        self.region_name, self.toolkit, self.role = region, toolkit, role

    def client(self, service):
        from botocore.exceptions import ClientError

        session = self

        class Client:
            def get_caller_identity(self):
                return {"Account": "111111111111"}

            def describe_stacks(self, StackName):  # noqa: N803
                if session.toolkit is None:
                    raise ClientError({"Error": {"Code": "ValidationError",
                                                 "Message": f"Stack with id {StackName} does not exist"}},
                                      "DescribeStacks")
                return {"Stacks": [{"StackStatus": session.toolkit}]}

            def get_account(self):
                return {"cloudwatchRoleArn": session.role} if session.role else {}

        return Client()


def test_preflight_passes_a_ready_account_with_no_extra_context():
    from preflight import check

    assert check(FakeSession(), "acme") == []


def test_preflight_asks_for_the_logging_role_when_the_account_has_none():
    from preflight import check

    assert check(FakeSession(role=None), "acme") == ["-c", "createApiGatewayLogsRole=true"]


@pytest.mark.parametrize("session,message", [
    (FakeSession(toolkit=None), "not bootstrapped"),
    (FakeSession(toolkit="ROLLBACK_COMPLETE"), "make bootstrap"),
    (FakeSession(region=None), "AWS_REGION"),
])
def test_preflight_stops_with_a_clear_message(session, message):
    from preflight import Stop, check

    with pytest.raises(Stop, match=message):
        check(session, "acme")


def test_the_makefile_deploys_and_dry_runs_with_the_same_context():
    text = (ROOT / "Makefile").read_text()
    deploy = text[text.index("\ndeploy:"):].split("\n\n")[0]
    synth = text[text.index("\nsynth:"):].split("\n\n")[0]
    for recipe in (deploy, synth):
        assert "-c tenant=$(TENANT)" in recipe and "$(CONTEXT)" in recipe and "-o cdk.out/$(TENANT)" in recipe
    assert "infra/preflight.py" in deploy and "aws-cdk@2.1148.1 deploy" in text.replace("$(CDK) deploy", "aws-cdk@2.1148.1 deploy")
    assert 'CDK_APP := --app "$(BIN)/python infra/app.py"' in text
