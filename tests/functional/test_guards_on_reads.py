"""Guards on any tool, reads included ("authenticate the customer before any lookup of their data"), and an agent
whose tools are deny-by-default: a tool runs only where a guard in scope permits it. The agent is written here
(a pharmacy's prescription desk)."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

AGENT = """
id: rx
name: Prescription desk
profile_field_definitions:
  - {field_name: rx_number, field_type: string, description: The prescription number, sources: [message],
     validation_rules: ["len(value) == 7"]}
  - {field_name: date_of_birth, field_type: date, description: The patient's date of birth, sources: [message]}
  - {field_name: patient_verified, field_type: boolean, description: The date of birth matched, sources: [tool]}
  - {field_name: rx_status, field_type: string, description: Where the prescription is, sources: [tool]}
tools:
  - id: verify_patient
    kind: python
    entrypoint: tools.py:verify
    input: {rx_number: {type: string}, date_of_birth: {type: date}}
    output: {ok: patient_verified}
  - id: prescription_status
    kind: python
    entrypoint: tools.py:status
    input: {rx_number: {type: string}}
    output: {status: rx_status}
rules:
  - id: verified_before_lookup
    condition_text: a prescription is looked up
    action_text: only for a patient whose date of birth matched
    is_hard_constraint: true
    guarded_tool_ids: [prescription_status]
    enforcement_expression: patient_verified == True
    fallback_text: I can only share prescription details once your date of birth matches our records.
scenarios:
  - id: rx_status_check
    name: Prescription status
    entry_examples: [Is my prescription ready, Where is my prescription, Check my refill status]
    entry_step_id: ask
    steps:
      - id: ask
        slots:
          - {name: rx_number, prompt: "What is your seven-character prescription number?"}
          - {name: date_of_birth, type: date, prompt: "And your date of birth?"}
        action: [verify_patient]
        transitions: [{target: status}]
      - id: status
        action: [prescription_status]
        transitions: [{target: done}]
      - id: done
        response_template: Your prescription is {rx_status}.
"""
TOOLS = """
def verify(rx_number, date_of_birth):
    return {'ok': str(date_of_birth) == '1980-04-02'}

def status(rx_number):
    return {'status': 'ready for pickup'}
"""


def _run(tmp_path: Path, agent: str, turns: list[dict]) -> None:
    passes(tmp_path, agent, TOOLS, turns, "rx")


def test_a_lookup_is_guarded_like_any_action(tmp_path):
    _run(tmp_path, AGENT, [
        {"user": "Is my prescription ready?", "expect": {"step": "ask"}},
        {"user": "RX12345", "expect": {"response_contains": "date of birth"}},
        {"user": "1975-01-01", "expect": {"tool_calls": ["verify_patient"], "blocked_tools": ["prescription_status"],
                                          "response_not_contains": "ready for pickup"}},
    ])
    _run(tmp_path, AGENT, [
        {"user": "Is my prescription ready?", "expect": {"step": "ask"}},
        {"user": "RX12345", "expect": {"response_contains": "date of birth"}},
        {"user": "1980-04-02", "expect": {"tool_calls": ["verify_patient", "prescription_status"],
                                          "response_contains": "ready for pickup"}},
    ])


def test_deny_by_default_blocks_every_tool_no_guard_permits(tmp_path):
    deny = AGENT.replace("rules:\n", "tools_without_guard: deny\nrules:\n", 1)
    _run(tmp_path, deny, [
        {"user": "Is my prescription ready?", "expect": {"step": "ask"}},
        {"user": "RX12345", "expect": {"response_contains": "date of birth"}},
        {"user": "1980-04-02", "expect": {"blocked_tools": ["verify_patient"],
                                          "response_not_contains": "ready for pickup"}},
    ])
    permitted = deny.replace("guarded_tool_ids: [prescription_status]\n    enforcement_expression: patient_verified == True",
                             "guarded_tool_ids: [prescription_status]\n    enforcement_expression: patient_verified == True\n"
                             "  - id: anyone_may_verify\n    condition_text: a patient is verified\n"
                             "    action_text: always allowed\n    is_hard_constraint: true\n"
                             "    guarded_tool_ids: [verify_patient]\n    enforcement_expression: rx_number != ''")
    _run(tmp_path, permitted, [
        {"user": "Is my prescription ready?", "expect": {"step": "ask"}},
        {"user": "RX12345", "expect": {"response_contains": "date of birth"}},
        {"user": "1980-04-02", "expect": {"tool_calls": ["verify_patient", "prescription_status"],
                                          "response_contains": "ready for pickup"}},
    ])
