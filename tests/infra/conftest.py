"""Infra fixtures: the tenant stack synthesized once per test session, bundling skipped."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT / "functions", ROOT / "infra"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


@pytest.fixture(scope="session")
def synthesized():
    from focal_infra.testing import synth_stack

    return synth_stack("acme")


@pytest.fixture(scope="session")
def template_json(synthesized) -> dict[str, Any]:
    return synthesized[1]


@pytest.fixture(scope="session")
def template(template_json):
    from aws_cdk.assertions import Template

    return Template.from_json(template_json)


@pytest.fixture(scope="session")
def resources(template_json) -> dict[str, dict[str, Any]]:
    return template_json["Resources"]

