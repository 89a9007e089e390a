"""A value that a called flow checked (an identity) and that the customer changes later is checked again: the
correction goes back to the step that calls that flow, so its look-up runs on the new value, and what the look-up
answered for the old value is forgotten until then. Found by a newcomer's claims desk (session 10): a caller verified
on one policy said "sorry, the policy is HH204518" at the confirmation and the payout account of that other,
never verified, policy was changed."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

AGENT = """
id: claims
name: Claims desk
profile_field_definitions:
  - {field_name: policy_number, field_type: id, description: The policy number, pattern: '\\b[Hh][Hh]\\d{6}\\b',
     sources: [message]}
  - {field_name: date_of_birth, field_type: date, description: The holder's date of birth, sources: [message]}
  - {field_name: iban, field_type: id, description: The new IBAN, pattern: '\\bDE\\d{20}\\b', sources: [message]}
  - {field_name: customer_verified, field_type: boolean, description: The policy and date of birth matched,
     sources: [tool], privileged: true}
  - {field_name: payout_changed, field_type: boolean, description: The account was changed, sources: [tool]}
tools:
  - id: verify_customer
    kind: python
    entrypoint: tools.py:verify
    input: {policy_number: {type: id}, date_of_birth: {type: date}}
    output: {verified: customer_verified}
  - id: change_payout_account
    kind: python
    entrypoint: tools.py:change
    input: {policy_number: {type: id}, iban: {type: id}}
    output: {ok: payout_changed}
    side_effect: true
scenarios:
  - id: verify
    name: Verify the caller
    entry_examples: [I need to verify my identity]
    entry_step_id: ask_identity
    steps:
      - id: ask_identity
        slots:
          - {name: policy_number, type: id, prompt: "What is your policy number?"}
          - {name: date_of_birth, type: date, prompt: "And the policy holder's date of birth?"}
        action: [verify_customer]
  - id: change_bank
    name: Change the payout account
    entry_examples: [Please update my bank details, I have a new IBAN, Change the account you pay my claims into]
    entry_step_id: identify
    steps:
      - id: identify
        call: verify
        transitions:
          - {target: not_verified, when: not customer_verified}
          - {target: ask_iban}
      - id: ask_iban
        slots: [{name: iban, type: id, prompt: "What is the IBAN of the new account?"}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "I'll pay claims on policy {policy_number} into {iban}. Shall I go ahead?"
        action: [change_payout_account]
        transitions: [{target: changed}]
      - {id: changed, response_template: "Done: claims on policy {policy_number} go to {iban}."}
      - {id: not_verified, response_template: "Those details don't match our records, so I can't change the account."}
rules:
  - id: verified_before_bank_change
    condition_text: The payout account is about to be changed
    action_text: Only for a caller whose policy number and date of birth matched.
    is_hard_constraint: true
    guarded_tool_ids: [change_payout_account]
    enforcement_expression: customer_verified == True and customer_confirmed
    fallback_text: I can only change the payout account once you're verified.
"""
TOOLS = """
HOLDERS = {'HH309911': '1972-11-03', 'HH204518': '1985-04-12'}

def verify(policy_number, date_of_birth):
    if policy_number.upper() == 'HH777777':
        raise RuntimeError('policy system down')
    return {'verified': HOLDERS.get(policy_number.upper()) == str(date_of_birth)}

def change(policy_number, iban):
    return {'ok': True}
"""

VERIFIED = [
    {"user": "Please update my bank details", "expect": {"response_contains": "policy number"}},
    {"user": "HH309911", "expect": {"response_contains": "date of birth"}},
    {"user": "3 November 1972", "expect": {"tool_calls": ["verify_customer"], "response_contains": "IBAN"}},
    {"user": "DE89370400440532013000", "expect": {"step": "confirm", "response_contains": "HH309911"}},
]


def test_a_policy_changed_after_verification_is_verified_again_before_anything_is_offered(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        *VERIFIED,
        {"user": "sorry, the policy is HH204518",
         "expect": {"tool_calls": [{"verify_customer": {"policy_number": "HH204518"}}],
                    "response_contains": "don't match", "response_not_contains": "Shall I go ahead"}},
        {"user": "yes", "expect": {"tool_calls": [], "response_not_contains": "Done"}},
    ])


def test_a_policy_changed_to_one_of_the_same_holder_is_offered_again_after_its_own_verification(tmp_path: Path):
    agent = AGENT.replace("'HH204518': '1985-04-12'", "'HH204518': '1972-11-03'")
    tools = TOOLS.replace("'HH204518': '1985-04-12'", "'HH204518': '1972-11-03'")
    passes(tmp_path, agent, tools, [
        *VERIFIED,
        {"user": "sorry, the policy is HH204518",
         "expect": {"tool_calls": [{"verify_customer": {"policy_number": "HH204518"}}], "step": "confirm",
                    "response_contains": "HH204518"}},
        {"user": "yes", "expect": {"tool_calls": [{"change_payout_account": {"policy_number": "HH204518"}}]}},
    ])


def test_a_verification_that_fails_to_run_on_the_new_policy_never_lets_the_old_one_vouch_for_it(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        *VERIFIED,
        {"user": "sorry, the policy is HH777777", "expect": {"response_not_contains": "Shall I go ahead"}},
        {"user": "yes", "expect": {"response_not_contains": "Done"}},
        {"user": "yes please, go ahead", "expect": {"response_not_contains": "Done"}},
    ])
