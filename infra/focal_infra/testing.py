"""Synthesize a tenant stack in-process, once per test session (shared by tests/infra and tests/e2e)."""

from __future__ import annotations

import copy
import json
import tempfile
from functools import lru_cache
from typing import Any

import aws_cdk as cdk

from focal_infra.paths import ROOT
from focal_infra.stack import FocalStack, tenant_from_context

NO_BUNDLING = {"aws:cdk:bundling-stacks": []}


def cdk_json_context() -> dict[str, Any]:
    """The context `cdk synth` would use (feature flags from cdk.json), so tests see the same template."""
    return dict(json.loads((ROOT / "cdk.json").read_text()).get("context", {}))


@lru_cache(maxsize=4)
def _synth(tenant: str) -> tuple[FocalStack, dict[str, Any]]:
    outdir = tempfile.mkdtemp(prefix="focal-cdk-")
    app = cdk.App(outdir=outdir, context={**cdk_json_context(), **NO_BUNDLING, "tenant": tenant})
    stack = FocalStack(app, f"Focal-{tenant_from_context(app)}", tenant=tenant_from_context(app))
    assembly = app.synth()
    return stack, assembly.get_stack_by_name(stack.stack_name).template


def synth_stack(tenant: str = "acme") -> tuple[FocalStack, dict[str, Any]]:
    """The stack object and a private copy of its CloudFormation template (bundling skipped)."""
    stack, template = _synth(tenant)
    return stack, copy.deepcopy(template)
