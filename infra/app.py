#!/usr/bin/env python3
"""Focal CDK app: one stack per tenant environment.

    cdk synth -c tenant=acme        # stack Focal-acme
    cdk deploy -c tenant=acme
    python3 infra/app.py            # same synth without the CLI (tenant from context or "dev")

Run as a script it applies cdk-nag AwsSolutions (focal_infra/nag.py); build_app alone does not.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import aws_cdk as cdk  # noqa: E402

from focal_infra.stack import FocalStack, tenant_from_context  # noqa: E402


def build_app(app: cdk.App | None = None) -> tuple[cdk.App, FocalStack]:
    app = app or cdk.App()
    tenant = tenant_from_context(app)
    env = None
    if os.environ.get("CDK_DEFAULT_ACCOUNT") and os.environ.get("CDK_DEFAULT_REGION"):
        env = cdk.Environment(account=os.environ["CDK_DEFAULT_ACCOUNT"], region=os.environ["CDK_DEFAULT_REGION"])
    stack = FocalStack(
        app,
        f"Focal-{tenant}",
        tenant=tenant,
        env=env,
        description=f"Focal alignment engine, tenant environment {tenant}",
        tags={"focal:tenant": tenant},
    )
    return app, stack


if __name__ == "__main__":
    from focal_infra import nag

    application, focal_stack = build_app()
    # cdk-nag AwsSolutions (focal_infra/nag.py): synth fails on any finding not acknowledged there.
    nag.checks(application)
    nag.acknowledge(focal_stack)
    application.synth()
