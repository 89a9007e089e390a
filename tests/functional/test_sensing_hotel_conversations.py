"""A guest-house desk, end to end on the offline sensor: a yes at a confirmation runs the action with the value the
guest gave (never a boolean the yes was read as), "sure, cancel it" to "Shall I cancel it?" cancels the stay, two
dates asked in one step each take their own date, and "two adults and a child" answers how many guests."""

from __future__ import annotations

from pathlib import Path

from focal.cli.conversation_tests import format_report, run_suite

TOOLS = '''
def cancel_stay(stay_id, keep_deposit, idempotency_key=None, customer_id=None):
    return {"reference": "CX-" + stay_id[-3:], "kept": "kept" if keep_deposit else "not kept"}


def reserve_stay(arrival, departure, guests, idempotency_key=None, customer_id=None):
    return {"reference": "RS-" + arrival.replace("-", "")}
'''

AGENT = """
id: guesthouse
name: Guest house desk
out_of_scope_message: I can reserve or cancel a stay.
profile_field_definitions:
  - {field_name: stay_id, display_name: Stay reference, field_type: id, pattern: '\\bGH-\\d{3}\\b', sources: [message]}
  - {field_name: keep_deposit, display_name: Deposit kept, field_type: boolean, sources: [message], default: false}
  - {field_name: arrival, display_name: Arrival date, field_type: date, sources: [message], extraction_hints: [arrive, arriving, from]}
  - {field_name: departure, display_name: Departure date, field_type: date, sources: [message], extraction_hints: [leave, leaving, until]}
  - {field_name: guests, display_name: Guests, field_type: integer, sources: [message], extraction_hints: [guests]}
  - {field_name: cancel_reference, field_type: string, sources: [tool]}
  - {field_name: deposit_outcome, field_type: string, sources: [tool]}
  - {field_name: stay_reference, field_type: string, sources: [tool]}
tools:
  - id: cancel_stay
    kind: python
    entrypoint: 'guesthouse_tools.py:cancel_stay'
    description: Cancel a stay.
    input: {stay_id: {type: id}, keep_deposit: {type: boolean}}
    output: {reference: cancel_reference, kept: deposit_outcome}
    side_effect: true
    idempotent: true
  - id: reserve_stay
    kind: python
    entrypoint: 'guesthouse_tools.py:reserve_stay'
    description: Reserve a stay.
    input: {arrival: {type: date}, departure: {type: date}, guests: {type: integer}}
    output: {reference: stay_reference}
    side_effect: true
    idempotent: true
scenarios:
  - id: cancel_stay
    name: Cancel a stay
    entry_examples: [I want to cancel my stay, please cancel my reservation at the guest house, call off my stay]
    entry_step_id: which
    steps:
      - id: which
        slots: [{name: stay_id, type: id, prompt: "Which stay? The reference looks like GH-100."}]
        transitions: [{target: deposit}]
      - id: deposit
        slots: [{name: keep_deposit, type: boolean, prompt: "Should we keep your deposit as credit?"}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "Stay {stay_id} will be cancelled (deposit kept: {keep_deposit}). Shall I cancel it?"
        action: [cancel_stay]
        transitions: [{target: done}]
      - id: done
        response_template: "Stay {stay_id} is cancelled ({cancel_reference}); deposit {deposit_outcome}."
  - id: reserve
    name: Reserve a stay
    entry_examples: [I'd like to reserve a stay, do you have a room free, book me a night at the guest house]
    entry_step_id: dates
    steps:
      - id: dates
        slots:
          - {name: arrival, type: date, prompt: "What day will you arrive?"}
          - {name: departure, type: date, prompt: "And what day will you leave?"}
        transitions: [{target: party}]
      - id: party
        slots: [{name: guests, type: integer, prompt: "How many guests will be staying?"}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "A stay from {arrival} to {departure} for {guests} guest(s). Shall I reserve it?"
        action: [reserve_stay]
        transitions: [{target: done}]
      - id: done
        response_template: "Reserved: {arrival} to {departure}, reference {stay_reference}."
"""

SUITE = """
conversations:
  - name: a yes at the confirmation runs the cancellation with the deposit as it was
    turns:
      - user: I want to cancel my stay
        expect: {scenario: cancel_stay, step: which}
      - user: GH-204
        expect: {step: confirm, response_contains: "deposit kept: no"}
      - user: "yes"
        expect: {commands: [AffirmConfirmation], tool_calls: [cancel_stay], response_contains: "deposit not kept"}

  - name: a no at the confirmation runs nothing and changes nothing
    turns:
      - user: I want to cancel my stay
      - user: GH-204
      - user: nope
        expect: {commands: [DenyConfirmation], tool_calls: []}

  - name: a yes in the question's words cancels the stay
    turns:
      - user: I want to cancel my stay
      - user: GH-311
        expect: {step: confirm}
      - user: sure, go ahead and cancel it
        expect: {commands: [AffirmConfirmation], tool_calls: [cancel_stay], response_contains: "GH-311 is cancelled"}

  - name: two dates asked in one step each take their own date
    turns:
      - user: I'd like to reserve a stay
        expect: {scenario: reserve, step: dates, response_contains: "arrive"}
      - user: June 12, 2027
        expect: {step: dates, response_contains: "leave", commands: [SetSlot]}
      - user: June 15, 2027
        expect: {step: party, commands: [SetSlot]}
      - user: two adults and a child
        expect: {step: confirm, response_contains: "from 2027-06-12 to 2027-06-15 for 3 guest"}
      - user: "yes"
        expect: {tool_calls: [reserve_stay], response_contains: "RS-20270612"}

  - name: a range fills both dates at once
    turns:
      - user: I'd like to reserve a stay
      - user: arriving June 12 and leaving June 15, 2027
        expect: {step: party}
      - user: me and my sister
        expect: {step: confirm, response_contains: "from 2027-06-12 to 2027-06-15 for 2 guest"}
"""


def test_the_guest_house_desk_reads_yes_no_dates_and_party_sizes(tmp_path: Path) -> None:
    (tmp_path / "agent.yaml").write_text(AGENT)
    (tmp_path / "guesthouse_tools.py").write_text(TOOLS)
    (tmp_path / "tests.yaml").write_text(SUITE)
    report = run_suite(tmp_path / "agent.yaml", tmp_path / "tests.yaml")
    assert report.conversations and report.passed, "\n" + format_report(report)
