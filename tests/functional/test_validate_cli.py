"""The installed `focal validate` command, run as a user runs it (a separate process), on action guards
and on warnings: errors name the file, the field path and the line; warnings alone exit 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

AGENT = """\
id: shop
name: Shop
profile_field_definitions:
  - {field_name: order_id, field_type: id}
tools:
  - id: issue_refund
    entrypoint: 'shop_tools.py:issue_refund'
    input: {order_id: {type: id}}
    side_effect: true
rules:
  - id: tone
    condition_text: any reply
    action_text: stay courteous
    is_hard_constraint: true
    subjective: true
"""

GUARD = """\
  - id: refund_cap
    condition_text: a refund is issued
    action_text: never refund more than $50 unless the customer confirmed it
    is_hard_constraint: true
    guarded_tool_ids: [issue_refund]
    enforcement_expression: amount <= 50 or customer_confirmed
"""


def write_agent(folder: Path, text: str) -> Path:
    """The agent file and the tool file its python tool names (tools load only the agent's own files)."""
    (folder / "shop_tools.py").write_text("def issue_refund(order_id):\n    return {}\n", encoding="utf-8")
    path = folder / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def focal(*args: str, model: str | None = None) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("focal")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "focal.main"]
    env = {k: v for k, v in os.environ.items() if k != "FOCAL_MODEL"}
    if model:
        env["FOCAL_MODEL"] = model
    return subprocess.run([*command, *args], capture_output=True, text=True, env=env, timeout=120, check=False)


def test_a_guard_reading_an_argument_its_tool_does_not_take_fails_with_file_path_and_line(tmp_path):
    path = write_agent(tmp_path, AGENT + GUARD)
    done = focal("validate", str(path))
    assert done.returncode == 1, done.stdout + done.stderr
    line = (AGENT + GUARD).splitlines().index("    enforcement_expression: amount <= 50 or customer_confirmed") + 1
    assert f"{path}: 1 problem(s)" in done.stdout
    assert ("  rules[1].enforcement_expression: guard reads 'amount', which tool 'issue_refund' does not take "
            f"(its inputs: order_id) and no field declares (line {line})") in done.stdout
    assert "customer_confirmed" not in done.stdout.split("warning(s)")[0]  # the built-in name is no problem
    assert "rules[0].subjective: no judge model is configured" in done.stdout  # warnings are shown beside errors


def test_warnings_alone_exit_0_and_a_model_from_the_environment_silences_them(tmp_path):
    path = write_agent(tmp_path, AGENT)
    done = focal("validate", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{path}: OK" in done.stdout and f"{path}: 1 warning(s)" in done.stdout
    assert "rules[0].subjective: no judge model is configured (models.model or FOCAL_MODEL)" in done.stdout
    assert f"(line {AGENT.splitlines().index('    subjective: true') + 1})" in done.stdout
    quiet = focal("validate", str(path), model="openai/gpt-4o-mini")
    assert quiet.returncode == 0 and "warning(s)" not in quiet.stdout and "judge" not in quiet.stdout, quiet.stdout
