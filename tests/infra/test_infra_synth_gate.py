"""`make synth` (infra/app.py run directly): CDK's warnings and a cdk-nag summary are printed, and a warning
or a cdk-nag finding left fails the synth (focal_infra/synth_gate.py).

Each test synthesizes through the app's own `main`, in-process, bundling skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

import aws_cdk as cdk
import pytest

from infra_helpers import method, of_type

pytestmark = pytest.mark.slow


def _synth(tenant: str, out: Path, capsys) -> tuple[int, str]:
    from app import main

    rc = main(["-c", f"tenant={tenant}", "-c", "aws:cdk:bundling-stacks=[]", "-o", str(out / tenant)])
    return rc, capsys.readouterr().out


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_a_tenant_synthesizes_with_no_warning_and_no_finding_left(tenant, tmp_path, capsys):
    rc, out = _synth(tenant, tmp_path, capsys)
    assert rc == 0, out
    assert f"Focal-{tenant}: CDK warnings: 0 left" in out
    assert "WARNING" not in out and "NOT ACKNOWLEDGED" not in out
    nag_line = next(line for line in out.splitlines() if "cdk-nag AwsSolutions:" in line)
    assert nag_line.endswith(" 0 left") and " 0 findings" not in nag_line  # the checks ran, all answered
    assert "acknowledged" in out and "AwsSolutions-L1" in out  # the summary names what it accepted, with reasons
    assert f"Focal-{tenant}: synth OK" in out
    template = json.loads((tmp_path / tenant / f"Focal-{tenant}.template.json").read_text())
    responses = [r["StatusCode"] for r in method(template["Resources"], "POST", "turns")["Properties"]["MethodResponses"]]
    assert len(responses) == len(set(responses))  # each status once: a deterministic deployment
    assert of_type(template["Resources"], "AWS::Lambda::Alias")  # the SnapStart acknowledgment's premise


def test_a_deliberate_warning_fails_the_synth_and_is_printed(tmp_path, capsys, monkeypatch):
    import app

    build = app.build_app

    def with_warning(application=None):
        application, stack = build(application)
        cdk.Annotations.of(stack.api).add_warning_v2("focal:deliberate", "a deliberate warning from the test")
        return application, stack

    monkeypatch.setattr(app, "build_app", with_warning)
    rc, out = _synth("acme", tmp_path, capsys)
    assert rc == 1
    assert "CDK warnings: 1 left" in out
    assert "WARNING /Focal-acme/Api: [focal:deliberate] a deliberate warning from the test" in out
    assert "synth FAILED" in out


def test_an_unacknowledged_nag_finding_fails_the_synth_and_is_named(tmp_path, capsys, monkeypatch):
    from focal_infra import nag

    monkeypatch.setattr(nag, "API", {k: v for k, v in nag.API.items() if k != "AwsSolutions-APIG3"})
    rc, out = _synth("acme", tmp_path, capsys)
    assert rc == 1
    assert "1 left" in out and "NOT ACKNOWLEDGED Focal-acme/Api/DeploymentStage.live/Resource: [AwsSolutions-APIG3]" in out
    assert "synth FAILED" in out
