"""Escalation goes through the agent's own handoff tool when it declares one, with a summary of the
conversation (built-in `conversation_summary`); a handoff that fails is said, never claimed. The agent is
written here (a bike shop's repair desk)."""

from __future__ import annotations

import json
from pathlib import Path

from written_agent import passes, write_agent

from focal.config.loader import load_agent_file
from focal.config.validate import semantic_problems

AGENT = """
id: bikes
name: Repair desk
handoff_tool: transfer_to_staff
profile_field_definitions:
  - {field_name: ticket, field_type: string, description: The repair ticket, sources: [message],
     validation_rules: ["len(value) == 6"]}
  - {field_name: handoff_ref, field_type: string, description: The transfer's reference, sources: [tool]}
tools:
  - id: transfer_to_staff
    kind: python
    entrypoint: tools.py:transfer
    input: {summary: {type: string}}
    arguments: {summary: conversation_summary}
    output: {ref: handoff_ref}
    side_effect: true
scenarios:
  - id: repair_status
    name: Repair status
    entry_examples: [Is my bike repaired yet, Where is my repair, Check my repair ticket]
    entry_step_id: ask
    steps:
      - id: ask
        slots: [{name: ticket, prompt: "What is your six-character repair ticket?"}]
"""
TOOLS = """
import json, pathlib
def transfer(summary):
    pathlib.Path(__file__).with_name('handed.json').write_text(json.dumps(summary))
    return {'ref': 'H-1'}
"""


def _write(tmp_path: Path, agent: str = AGENT, tools: str = TOOLS) -> Path:
    return write_agent(tmp_path, agent, tools)


def _run(tmp_path: Path, turns: list[dict], tools: str = TOOLS) -> None:
    passes(tmp_path, AGENT, tools, turns, "handoff")


def test_asking_for_a_person_runs_the_agents_handoff_tool_with_a_summary(tmp_path):
    _run(tmp_path, [
        {"user": "Is my bike repaired yet?", "expect": {"step": "ask"}},
        {"user": "I want to talk to a human", "expect": {"tool_calls": ["transfer_to_staff"]}},
    ])
    summary = json.loads((tmp_path / "handed.json").read_text())
    assert "Repair status" in summary and "Is my bike repaired yet?" in summary and "talk to a human" in summary


def test_a_failed_handoff_is_not_announced_as_done(tmp_path):
    failing = "def transfer(summary):\n    raise RuntimeError('queue closed')\n"
    _run(tmp_path, [
        {"user": "I want to talk to a human", "expect": {"response_not_contains": "connect you with a member"}},
    ], tools=failing)


def test_validate_names_a_handoff_tool_that_does_not_exist(tmp_path):
    loaded = load_agent_file(_write(tmp_path, AGENT.replace("handoff_tool: transfer_to_staff", "handoff_tool: transfer_to_staf")))
    assert loaded.config is not None
    found = [str(p) for p in semantic_problems(loaded.config, loaded.raw)]
    assert any("handoff_tool" in p and "did you mean 'transfer_to_staff'" in p for p in found), found
