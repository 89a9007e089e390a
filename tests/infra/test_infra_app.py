"""The CDK app entry point: one stack per tenant, named from the `tenant` context."""

from __future__ import annotations

import json
from pathlib import Path

import aws_cdk as cdk
import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_cdk_json_runs_the_app():
    config = json.loads((ROOT / "cdk.json").read_text())
    assert config["app"] == "python3 infra/app.py"


def test_stack_name_comes_from_the_tenant_context(synthesized):
    stack, _ = synthesized
    assert stack.stack_name == "Focal-acme"
    assert stack.tenant == "acme"


def test_app_builds_one_stack_for_the_context_tenant_with_dev_as_default():
    from app import build_app

    _, stack = build_app(cdk.App(context={"aws:cdk:bundling-stacks": [], "tenant": "globex"}))
    assert stack.stack_name == "Focal-globex"
    app, stack = build_app(cdk.App(context={"aws:cdk:bundling-stacks": []}))
    assert stack.stack_name == "Focal-dev"
    assert [c.node.id for c in app.node.children if isinstance(c, cdk.Stack)] == ["Focal-dev"]


@pytest.mark.parametrize("tenant", ["Acme", "acme_corp", "1acme", "a" * 21, ""])
def test_invalid_tenants_are_rejected(tenant):
    from app import build_app

    with pytest.raises(ValueError, match="tenant"):
        build_app(cdk.App(context={"aws:cdk:bundling-stacks": [], "tenant": tenant or "-"}))
