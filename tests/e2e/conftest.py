"""E2E fixtures: the synthesized stack's state machine, executed by moto with in-process Lambdas."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT / "functions", ROOT / "infra", Path(__file__).resolve().parent):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from harness import REGION, PipelineHarness  # noqa: E402

MOTO_CONFIG = {"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}


@pytest.fixture(scope="session")
def template() -> dict:
    from focal_infra.testing import synth_stack

    return synth_stack("acme")[1]


@pytest.fixture
def aws_env(monkeypatch):
    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": REGION,
        "AWS_REGION": REGION,
    }.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.delenv("FOCAL_MODEL", raising=False)


@pytest.fixture
def moto_pipeline(template, aws_env, monkeypatch):
    """A fresh moto world: tables, functions and the state machine built from the template."""
    from moto import mock_aws

    with mock_aws(config=MOTO_CONFIG):
        harness = PipelineHarness(template)
        harness.install(monkeypatch)
        yield harness
