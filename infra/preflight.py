#!/usr/bin/env python3
"""Checks `make deploy` runs before `cdk deploy`, against the account and region of the current credentials.

    python infra/preflight.py --tenant acme

- credentials and a region are set (else: which variable to set); the region is found as every Focal
  command finds it: AWS_REGION, AWS_DEFAULT_REGION, the profile's region (focal.adapters.aws);
- the environment is bootstrapped (the CDKToolkit stack exists; else: `make bootstrap`);
- API Gateway's account-level CloudWatch role is set; if not, prints `-c createApiGatewayLogsRole=true`
  on stdout, which `make deploy` adds to the deploy's context (the stack then creates the role).

stdout carries only extra context arguments; every message goes to stderr. Exit 0: deploy; 2: stop.
Read-only calls: sts:GetCallerIdentity, cloudformation:DescribeStacks, apigateway:GET /account.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

FUNCTIONS = Path(__file__).resolve().parents[1] / "functions"
if str(FUNCTIONS) not in sys.path:  # the engine's AWS helpers, also from a tree that was never installed
    sys.path.insert(0, str(FUNCTIONS))

TOOLKIT_STACK = "CDKToolkit"
CDK = "npx --yes aws-cdk@2.1148.1"


class Stop(Exception):
    pass


def check(session: Any, tenant: str, qualifier_stack: str = TOOLKIT_STACK) -> list[str]:
    """Extra context arguments for the deploy; raises Stop with a message when the deploy cannot work."""
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

    from focal.adapters.aws import NO_CREDENTIALS, NO_REGION

    region = session.region_name
    if not region:
        raise Stop(NO_REGION)
    try:
        account = session.client("sts").get_caller_identity()["Account"]
    except NoCredentialsError:
        raise Stop(NO_CREDENTIALS) from None
    except (ClientError, BotoCoreError) as exc:
        raise Stop(f"the credentials do not work ({type(exc).__name__}: {exc})") from None
    print(f"preflight: account {account}, region {region}, stack Focal-{tenant}", file=sys.stderr)
    try:
        stacks = session.client("cloudformation").describe_stacks(StackName=qualifier_stack)["Stacks"]
        status = stacks[0]["StackStatus"] if stacks else "MISSING"
    except ClientError as exc:
        if "does not exist" not in str(exc):
            raise Stop(f"could not check the {qualifier_stack} stack ({exc})") from None
        status = "MISSING"
    if status == "MISSING" or status.startswith(("DELETE_", "ROLLBACK_")) or status.endswith("_FAILED"):
        raise Stop(f"aws://{account}/{region} is not bootstrapped for CDK ({qualifier_stack}: {status}).\n"
                   f"Run once per account and region:  make bootstrap   (= {CDK} bootstrap aws://{account}/{region})")
    extra: list[str] = []
    try:
        role = session.client("apigateway").get_account().get("cloudwatchRoleArn")
    except ClientError as exc:
        raise Stop(f"could not read API Gateway's account settings ({exc})") from None
    if not role:
        print("preflight: API Gateway has no CloudWatch logging role in this region: this stack creates it "
              "(-c createApiGatewayLogsRole=true; kept on destroy, shared by every stack here)", file=sys.stderr)
        extra += ["-c", "createApiGatewayLogsRole=true"]
    return extra


def session() -> Any:
    """A boto3 session in the region Focal's commands use (AWS_REGION first: focal.adapters.aws)."""
    from focal.adapters import aws

    try:
        return aws.session()
    except Exception as exc:  # noqa: BLE001 - no region, an unknown profile: one line, not a traceback
        message = aws.problem(exc)
        if message is None:
            raise
        raise Stop(message) from None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenant", required=True)
    args = parser.parse_args(argv)
    try:
        extra = check(session(), args.tenant)
    except Stop as stop:
        print(f"preflight: {stop}", file=sys.stderr)
        return 2
    print(" ".join(extra))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
