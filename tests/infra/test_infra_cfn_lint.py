"""cfn-lint on the synthesized template: no errors and no warnings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# None: W3005 (CDK's DependsOn on a role already referenced by GetAtt) is removed by
# FocalStack._drop_redundant_role_dependencies.
KNOWN_WARNINGS: set[str] = set()


def test_cfn_lint_reports_no_errors(template_json, tmp_path: Path):
    path = tmp_path / "Focal-acme.template.json"
    path.write_text(json.dumps(template_json, indent=1))
    cfn_lint = Path(sys.executable).with_name("cfn-lint")
    command = [str(cfn_lint)] if cfn_lint.exists() else [sys.executable, "-m", "cfnlint"]
    proc = subprocess.run(
        [*command, "--format", "parseable", "--regions", "us-east-1", "eu-west-1", "--", str(path)],
        capture_output=True, text=True, timeout=300,
    )
    findings = [line for line in proc.stdout.splitlines() if line.strip()]
    # parseable: file:line:col:endline:endcol:RULE:message
    rules = [line.split(":")[5] for line in findings]
    errors = [f for f, r in zip(findings, rules) if r.startswith("E")]
    warnings = [f for f, r in zip(findings, rules) if r.startswith("W") and r not in KNOWN_WARNINGS]
    if findings:
        print("\n".join(findings))
    assert proc.returncode in (0, 4, 8, 12), proc.stderr  # cfn-lint: 2 = errors, 4 = warnings, 8 = info
    assert not errors, "\n".join(errors)
    assert proc.returncode & 2 == 0
    assert not warnings, "unexpected cfn-lint warnings (fix them or explain them in KNOWN_WARNINGS):\n" + "\n".join(warnings)
