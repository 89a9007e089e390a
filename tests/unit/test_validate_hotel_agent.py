"""The agent the hotel tests of `focal validate` edit (test_validate_hotel_*.py): a small hotel booking desk,
clean as written, that each test breaks in one place the way a newcomer's hotel agent did (or changes in a way
that looks alike but is correct). This file checks the base agent itself; the helpers are those of the
newcomer tests (test_validate_newcomer_agent.py)."""

from __future__ import annotations

from pathlib import Path

from agent_variants import line, validate_variant

from focal.config.gate import GateResult
from test_validate_newcomer_agent import found, shown

__all__ = ["AGENT", "TOOLS", "found", "line", "run", "shown"]

TOOLS = """\
def lookup_booking(booking_id):
    return {"found": True, "booking_id": booking_id, "hours": 72.0}


def create_booking(room_type, num_guests):
    return {"reference": "HB-1"}


def cancel_booking(booking_id, waive_fee):
    return {"reference": "CX-1"}
"""

AGENT = """\
id: harbor
name: Harbor Hotels
profile_field_definitions:
  - {field_name: loyalty_tier, field_type: enum, allowed_values: [none, silver, gold], sources: [profile], privileged: true, default: none}
  - {field_name: num_guests, field_type: integer, sources: [message], validation_rules: [value >= 1]}
  - field_name: room_type
    field_type: enum
    allowed_values: [standard, deluxe, suite]
    value_synonyms: {deluxe: [sea view]}
    sources: [message]
  - {field_name: booking_id, field_type: id, pattern: 'HB-\\d{4}', sources: [message, tool]}
  - {field_name: waive_fee, field_type: boolean, sources: [message], default: false}
  - {field_name: booking_found, field_type: boolean, sources: [tool]}
  - {field_name: checked_booking_id, field_type: id, sources: [tool]}
  - {field_name: hours_until_checkin, field_type: number, sources: [tool]}
  - {field_name: booking_reference, field_type: string, sources: [tool]}
  - {field_name: cancel_reference, field_type: string, sources: [tool]}
  - field_name: discount_promised
    description: The discount a reply promises, in percent.
    field_type: percentage
    extraction_hints: [discount, "off"]
    sources: [response]
    default: 0
  - field_name: upgrade_promised
    field_type: boolean
    extraction_hints: [upgrade, upgraded]
    sources: [response]
    default: false
tools:
  - id: lookup_booking
    entrypoint: 'tools.py:lookup_booking'
    input: {booking_id: {type: id}}
    output: {found: booking_found, booking_id: checked_booking_id, hours: hours_until_checkin}
  - id: create_booking
    entrypoint: 'tools.py:create_booking'
    input: {room_type: {type: enum}, num_guests: {type: integer}}
    output: {reference: booking_reference}
    side_effect: true
  - id: cancel_booking
    entrypoint: 'tools.py:cancel_booking'
    input: {booking_id: {type: id}, waive_fee: {type: boolean}}
    output: {reference: cancel_reference}
    side_effect: true
scenarios:
  - id: book_room
    name: Book a room
    entry_examples: [I'd like to book a room]
    entry_step_id: ask_room
    steps:
      - id: ask_room
        slots:
          - {name: room_type, type: enum, prompt: 'Standard, deluxe or suite?'}
          - {name: num_guests, type: integer, prompt: 'How many guests?'}
        transitions: [{target: confirm_booking}]
      - id: confirm_booking
        requires_confirmation: true
        confirmation_prompt: Shall I book a {room_type} room for {num_guests} guest(s)?
        action: [create_booking]
        transitions: [{target: booked}]
      - id: booked
        response_template: You're booked, reference {booking_reference}.
  - id: cancel
    name: Cancel a booking
    entry_examples: [Cancel my booking]
    entry_step_id: ask_booking
    steps:
      - id: ask_booking
        slots:
          - {name: booking_id, type: id, prompt: 'What is your booking reference?'}
          - {name: waive_fee, type: boolean, required: false, prompt: 'Would you like to ask for the fee to be dropped?'}
        action: [lookup_booking]
        transitions:
          - target: confirm_cancel
            when: booking_found
          - target: unknown_booking
            when: not booking_found
      - id: confirm_cancel
        requires_confirmation: true
        confirmation_prompt: Shall I cancel booking {booking_id}?
        action: [cancel_booking]
        transitions: [{target: cancelled}]
      - id: cancelled
        response_template: Booking {booking_id} is cancelled (reference {cancel_reference}).
      - id: unknown_booking
        response_template: I could not find booking {booking_id} on your account.
rules:
  - id: confirm_first
    condition_text: A booking or cancellation is about to be made
    action_text: Never act without the guest's yes.
    is_hard_constraint: true
    guarded_tool_ids: [create_booking, cancel_booking]
    enforcement_expression: customer_confirmed
  - id: no_late_waiver
    condition_text: A cancellation with a fee waiver is about to be made
    action_text: Never drop the fee within 24 hours of check-in.
    is_hard_constraint: true
    guarded_tool_ids: [cancel_booking]
    enforcement_expression: not waive_fee or hours_until_checkin >= 24
    fallback_text: The fee applies within a day of check-in, so nothing has been cancelled yet.
  - id: discount_cap
    condition_text: The reply offers a discount
    action_text: Never promise a discount above 15%.
    is_hard_constraint: true
    enforcement_expression: discount_promised <= 15
    fallback_text: Our best member rate is the one I quoted.
  - id: no_upgrade
    condition_text: The reply offers a better room
    action_text: Never promise a better room than the one booked.
    is_hard_constraint: true
    enforcement_expression: not upgrade_promised
    fallback_text: Room changes depend on availability at check-in.
  - id: checkin_time
    condition_text: What time is check-in?
    action_text: Say from 3pm.
    response_template: Check-in is from 3pm.
"""


def run(tmp_path: Path, *replacements: tuple[str, str]) -> tuple[GateResult, str, Path]:
    """Validate AGENT with each (old, new) replaced exactly once: the result, the text written, its path."""
    return validate_variant(tmp_path, AGENT, TOOLS, *replacements)


def test_the_base_hotel_agent_is_clean(tmp_path):
    result, _, _ = run(tmp_path)
    assert result.problems == [] and result.warnings == [], shown(result)
    assert result.config is not None
    assert [r.is_hard_constraint for r in result.config.rules] == [True, True, True, True, False]
