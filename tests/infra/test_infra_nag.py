"""cdk-nag AwsSolutions on the tenant stack: no finding left, every acknowledgment needed and reasoned.

Each test builds its own stack (the shared template is synthesized without cdk-nag, as it deploys).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import aws_cdk as cdk
import pytest

from infra_helpers import of_type

XRAY_ACTIONS = {"xray:PutTraceSegments", "xray:PutTelemetryRecords", "xray:GetSamplingRules",
                "xray:GetSamplingTargets", "xray:GetSamplingStatisticSummaries"}
LOG_DELIVERY_ACTIONS = {"logs:CreateLogDelivery", "logs:DeleteLogDelivery", "logs:DescribeLogGroups",
                        "logs:DescribeResourcePolicies", "logs:GetLogDelivery", "logs:ListLogDeliveries",
                        "logs:PutResourcePolicy", "logs:UpdateLogDelivery"}


def _fresh_stack(tenant: str = "acme"):
    from focal_infra.stack import FocalStack
    from focal_infra.testing import NO_BUNDLING, cdk_json_context

    app = cdk.App(outdir=tempfile.mkdtemp(prefix="focal-nag-"),
                  context={**cdk_json_context(), **NO_BUNDLING, "tenant": tenant})
    return app, FocalStack(app, f"Focal-{tenant}", tenant=tenant)


@pytest.fixture(scope="module")
def unacknowledged_findings():
    """(construct path, finding id, severity) of every AwsSolutions finding before acknowledgment."""
    from cdk_nag import AwsSolutionsChecks

    app, stack = _fresh_stack()
    report = AwsSolutionsChecks(app).validate_scope(stack)
    return {(r.construct_path, v.rule_name, v.severity) for v in report.violations for r in v.violating_resources}


@pytest.fixture(scope="module")
def acknowledged():
    from focal_infra import nag

    app, stack = _fresh_stack()
    return nag.acknowledge(stack)


def test_synth_with_aws_solutions_checks_reports_nothing_unacknowledged():
    """As `make synth` runs it: the plugin fails synthesis on any error or warning left."""
    from focal_infra import nag

    app, stack = _fresh_stack()
    nag.checks(app)
    nag.acknowledge(stack)
    assembly = app.synth()  # raises ValidationFailed with the report otherwise
    report = json.loads(Path(assembly.directory, "validation-report.json").read_text())
    assert report["pluginReports"] == []
    # the same check called directly, to name any finding left
    from cdk_nag import AwsSolutionsChecks

    direct = AwsSolutionsChecks(app).validate_scope(stack)
    left = [(v.rule_name, v.severity, [r.construct_path for r in v.violating_resources]) for v in direct.violations]
    assert direct.success and left == []


def test_each_acknowledgment_has_a_specific_reason(acknowledged):
    from focal_infra.nag import MIN_REASON

    assert acknowledged
    for ack in acknowledged:
        assert ack.id.startswith("AwsSolutions-"), ack
        assert len(ack.reason.strip()) >= MIN_REASON, ack
        if ack.id.startswith("AwsSolutions-IAM5"):
            assert "[Resource::" in ack.id, ack  # wildcards acknowledged one resource at a time
    assert not any(a.id.startswith("AwsSolutions-IAM4") for a in acknowledged)  # no managed policies left


def test_every_acknowledgment_matches_a_finding_and_every_finding_is_acknowledged(acknowledged,
                                                                                  unacknowledged_findings):
    def covered(path: str, finding: str) -> bool:
        return any(a.id == finding and (path == a.path or path.startswith(a.path + "/")) for a in acknowledged)

    unused = [a for a in acknowledged
              if not any(f == a.id and (p == a.path or p.startswith(a.path + "/")) for p, f, _ in unacknowledged_findings)]
    assert unused == []
    assert [f for f in unacknowledged_findings if not covered(f[0], f[1])] == []


def test_the_findings_fixed_in_the_stack_stay_fixed(unacknowledged_findings):
    rules = {f.split("[")[0] for _, f, _ in unacknowledged_findings}
    # managed policies (own roles, own log group), API access and execution logging, DynamoDB PITR
    assert not rules & {"AwsSolutions-IAM4", "AwsSolutions-APIG1", "AwsSolutions-APIG6", "AwsSolutions-DDB3",
                        "AwsSolutions-APIG2", "AwsSolutions-APIG4", "AwsSolutions-OS2", "AwsSolutions-OS5"}


def test_wildcard_resources_carry_only_xray_and_log_delivery_actions(resources):
    """The `Resource::*` acknowledgments are X-Ray's (every role) and Step Functions' log delivery (the
    state machines' roles): nothing else may use '*'."""
    machine_roles = {m["Properties"]["RoleArn"]["Fn::GetAtt"][0]
                     for m in of_type(resources, "AWS::StepFunctions::StateMachine").values()}
    for lid, policy in of_type(resources, "AWS::IAM::Policy").items():
        (role,) = policy["Properties"]["Roles"]
        allowed = XRAY_ACTIONS | (LOG_DELIVERY_ACTIONS if role["Ref"] in machine_roles else set())
        for st in policy["Properties"]["PolicyDocument"]["Statement"]:
            targets = st["Resource"] if isinstance(st["Resource"], list) else [st["Resource"]]
            if "*" in targets:
                actions = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
                assert set(actions) <= allowed, (lid, st)


def test_functions_write_only_to_their_own_log_group(resources):
    for lid, fn in of_type(resources, "AWS::Lambda::Function").items():
        group = fn["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]
        role = fn["Properties"]["Role"]["Fn::GetAtt"][0]
        assert "ManagedPolicyArns" not in resources[role]["Properties"], lid
        log_statements = [st for p in of_type(resources, "AWS::IAM::Policy").values()
                          if {"Ref": role} in p["Properties"]["Roles"]
                          for st in p["Properties"]["PolicyDocument"]["Statement"]
                          if any(a.startswith("logs:") for a in (st["Action"] if isinstance(st["Action"], list)
                                                                  else [st["Action"]]))]
        assert log_statements == [{"Action": ["logs:CreateLogStream", "logs:PutLogEvents"], "Effect": "Allow",
                                   "Resource": {"Fn::GetAtt": [group, "Arn"]}}], lid


def test_api_logs_access_and_errors_without_bodies(resources):
    (stage,) = of_type(resources, "AWS::ApiGateway::Stage").values()
    props = stage["Properties"]
    group = props["AccessLogSetting"]["DestinationArn"]["Fn::GetAtt"][0]
    assert resources[group]["Properties"]["RetentionInDays"] == 30
    assert "$context.requestId" in props["AccessLogSetting"]["Format"]
    assert "$input.body" not in props["AccessLogSetting"]["Format"]
    (settings,) = props["MethodSettings"]
    assert settings["LoggingLevel"] == "ERROR" and settings["DataTraceEnabled"] is False
