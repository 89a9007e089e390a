"""The agent the newcomer tests of `focal validate` edit (test_validate_newcomer_*.py): a small home-insurance
agent, clean as written, that each test breaks in one place the way a newcomer did (or changes in a way that
looks alike but is correct). This file checks the base agent itself."""

from __future__ import annotations

from pathlib import Path

from agent_variants import validate_variant

from focal.config.gate import GateResult

TOOLS = """\
def lookup_policy(policy_number):
    return {"found": True, "limit": 25000.0, "start": "2024-01-01"}


def issue_payout(policy_number, payout_amount):
    return {"reference": "PAY-1", "amount": payout_amount}


def file_claim(policy_number, incident_date, claimed_amount):
    return {"reference": "CL-1", "payout": claimed_amount}
"""

AGENT = """\
id: hearth
name: Hearth home insurance
profile_field_definitions:
  - {field_name: is_verified, field_type: boolean, sources: [profile], privileged: true, default: false}
  - {field_name: policy_number, field_type: id, pattern: 'HP-\\d{5}', sources: [message, tool]}
  - {field_name: policy_found, field_type: boolean, sources: [tool]}
  - {field_name: coverage_limit, field_type: money, sources: [tool]}
  - {field_name: policy_start_date, field_type: date, sources: [tool]}
  - {field_name: incident_date, field_type: date, sources: [message]}
  - field_name: claimed_amount
    field_type: money
    sources: [message]
    validation_rules: [value >= 0]
  - {field_name: claim_reference, field_type: string, sources: [tool]}
  - {field_name: payout_amount, field_type: money, sources: [tool]}
  - {field_name: payout_reference, field_type: string, sources: [tool]}
  - {field_name: paid_amount, field_type: money, sources: [tool]}
  - {field_name: payout_promised, field_type: money, sources: [response], default: 0}
tools:
  - id: lookup_policy
    entrypoint: 'tools.py:lookup_policy'
    input: {policy_number: {type: id}}
    output: {found: policy_found, limit: coverage_limit, start: policy_start_date}
  - id: file_claim
    entrypoint: 'tools.py:file_claim'
    input: {policy_number: {type: id}, incident_date: {type: date}, claimed_amount: {type: money}}
    output: {reference: claim_reference, payout: payout_amount}
    side_effect: true
  - id: issue_payout
    entrypoint: 'tools.py:issue_payout'
    input: {policy_number: {type: id}, payout_amount: {type: money}}
    output: {reference: payout_reference, amount: paid_amount}
    side_effect: true
scenarios:
  - id: claim
    name: File a claim
    entry_examples: [I want to file a claim]
    entry_step_id: ask_policy
    steps:
      - id: ask_policy
        slots:
          - {name: policy_number, type: id, prompt: 'What is your policy number?'}
        action: [lookup_policy]
        transitions:
          - target: collect
            when: policy_found
          - target: unknown_policy
            when: not policy_found
      - id: collect
        slots:
          - {name: incident_date, type: date, prompt: 'On what date did it happen?'}
          - name: claimed_amount
            type: money
            prompt: How much will the repairs cost?
            validation: value > 0
        transitions: [{target: confirm_claim}]
      - id: confirm_claim
        requires_confirmation: true
        confirmation_prompt: File a claim on {policy_number} for {incident_date}, estimated at ${claimed_amount}?
        action: [file_claim]
        transitions: [{target: confirm_payout}]
      - id: confirm_payout
        requires_confirmation: true
        confirmation_prompt: Your claim {claim_reference} is filed. Shall I pay out ${payout_amount} now?
        action: [issue_payout]
        transitions: [{target: paid}]
      - id: paid
        response_template: Done, ${paid_amount} is on its way (reference {payout_reference}).
      - id: unknown_policy
        response_template: I could not find policy {policy_number} on your account.
rules:
  - id: payout_cap
    condition_text: The reply promises a payout
    action_text: Never promise more than $2,000.
    is_hard_constraint: true
    enforcement_expression: payout_promised <= 2000
    fallback_text: An adjuster reviews larger payouts.
  - id: payout_guard
    condition_text: A payout is about to be issued
    action_text: Only pay out $2,000 or less.
    is_hard_constraint: true
    guarded_tool_ids: [issue_payout]
    enforcement_expression: payout_amount <= 2000 and payout_amount <= coverage_limit
  - id: confirm_first
    condition_text: A claim or payout is about to be made
    action_text: Only with the customer's yes.
    is_hard_constraint: true
    guarded_tool_ids: [file_claim, issue_payout]
    enforcement_expression: customer_confirmed
  - id: incident_in_cover
    condition_text: A claim is about to be filed
    action_text: Only for an incident after the policy started.
    is_hard_constraint: true
    guarded_tool_ids: [file_claim]
    enforcement_expression: incident_date >= policy_start_date
  - id: claim_timing
    condition_text: How long does a claim take?
    action_text: Say ten business days.
    scope: SCENARIO
    scope_id: claim
    response_template: Most claims are reviewed within ten business days.
"""


def run(tmp_path: Path, *replacements: tuple[str, str]) -> tuple[GateResult, str, Path]:
    """Validate AGENT with each (old, new) replaced exactly once: the result, the text written, its path."""
    return validate_variant(tmp_path, AGENT, TOOLS, *replacements)


def found(problems: list, path: str) -> list[tuple[str, int | None]]:
    return [(p.message, p.line) for p in problems if p.path == path]


def shown(result: GateResult) -> list[str]:
    return [str(p) for p in result.problems + result.warnings]


def test_the_base_agent_is_clean(tmp_path):
    result, _, _ = run(tmp_path)
    assert result.problems == [] and result.warnings == [], shown(result)
    assert result.config is not None
