"""`fallback_behavior` after `max_clarifications_per_step`: escalate (the example agent) or stay."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail"


def runner_with(tmp_path: Path, **navigation) -> LocalRunner:
    folder = tmp_path / "retail"
    shutil.copytree(RETAIL, folder)
    raw = yaml.safe_load((folder / "agent.yaml").read_text())
    raw["navigation"] = navigation
    (folder / "agent.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    return LocalRunner(local_deps(folder / "agent.yaml", tmp_path / "focal.db"))


def conversation(runner: LocalRunner, *messages: str):
    return [runner.turn(TurnRequest(tenant_id="t", agent_id="retail", session_id="s", customer_id="c-500", turn_id=str(i), message=m))
            for i, m in enumerate(messages)]


def test_staying_repeats_the_step_instead_of_escalating(tmp_path):
    runner = runner_with(tmp_path, max_clarifications_per_step=1, fallback_behavior="stay")
    _, first, second, third = conversation(runner, "Please refund order A1009", "maybe", "hmm", "not sure")
    assert first.execution_path == "clarify" and "didn't quite understand" in first.response
    for later in (second, third):
        assert later.execution_path == "respond"
        assert later.scenario == {"id": "refund", "step_id": "confirm_refund"}
        assert "Shall I go ahead" in later.response
        assert later.tool_calls == []


def test_zero_clarifications_escalates_at_once(tmp_path):
    runner = runner_with(tmp_path, max_clarifications_per_step=0, fallback_behavior="escalate")
    _, stuck = conversation(runner, "Please refund order A1009", "maybe")
    assert stuck.execution_path == "escalate" and stuck.tool_calls == []


def test_an_answer_after_a_clarification_moves_on(tmp_path):
    runner = runner_with(tmp_path, max_clarifications_per_step=2, fallback_behavior="escalate")
    _, unsure, yes = conversation(runner, "Please refund order A1009", "maybe", "yes")
    assert unsure.execution_path == "clarify"
    assert yes.scenario == {"id": "refund", "step_id": "refund_done"}
    assert [t["tool_id"] for t in yes.tool_calls] == ["issue_refund"]
