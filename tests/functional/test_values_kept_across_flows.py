"""A value the customer gave in the flow they leave is kept by the flow they start instead, when that flow shows it
back before acting (focal.dialogue.carried_slots): a customer who switches from changing a booking to cancelling it
is not asked the reference again, and the cancellation's question says it ("Shall I cancel booking RK309911?"). A
flow that would act on it without showing it asks for it again. Real pipeline, an agent written here, offline."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

AGENT = """
id: rentals
name: Rental desk
profile_field_definitions:
  - {field_name: booking_ref, field_type: id, display_name: booking reference, pattern: '\\bRK\\d{6}\\b',
     description: The booking reference, sources: [message]}
  - {field_name: new_day, field_type: date, description: The new pick-up day, sources: [message]}
  - {field_name: done_ref, field_type: string, description: The action's reference, sources: [tool]}
tools:
  - id: cancel_booking
    entrypoint: tools.py:cancel
    input: {booking_ref: {type: id}}
    output: {ref: done_ref}
    side_effect: true
  - id: send_invoice
    entrypoint: tools.py:invoice
    input: {booking_ref: {type: id}}
    output: {ref: done_ref}
    side_effect: true
scenarios:
  - id: change_booking
    name: Change a booking
    entry_examples: ["I need to change my booking", "Can I move my pick-up to another day?"]
    entry_step_id: ask_ref
    steps:
      - id: ask_ref
        slots: [{name: booking_ref, type: id, prompt: "What is your booking reference?"}]
        transitions: [{target: ask_day}]
      - id: ask_day
        slots: [{name: new_day, type: date, prompt: "Which day would you like instead?"}]
        transitions: [{target: changed}]
      - {id: changed, response_template: "Booking {booking_ref} moved to {new_day}."}
  - id: cancel_booking
    name: Cancel a booking
    entry_examples: [I want to cancel my booking, Please cancel my car rental]
    entry_step_id: ask_ref
    steps:
      - id: ask_ref
        slots: [{name: booking_ref, type: id, prompt: "Which booking should I cancel? Please give its reference."}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "Shall I cancel booking {booking_ref}?"
        action: [cancel_booking]
        transitions: [{target: cancelled}]
      - {id: cancelled, response_template: "Booking {booking_ref} is cancelled."}
  - id: invoice
    name: Send the invoice
    entry_examples: [Please email me the invoice, I need the invoice for my rental]
    entry_step_id: ask_ref
    steps:
      - id: ask_ref
        slots: [{name: booking_ref, type: id, prompt: "For which booking reference should I send the invoice?"}]
        action: [send_invoice]
        transitions: [{target: sent}]
      - {id: sent, response_template: "The invoice is on its way."}
"""
TOOLS = """
def cancel(booking_ref):
    return {'ref': 'C-1'}

def invoice(booking_ref):
    return {'ref': 'I-1'}
"""


def test_the_reference_given_for_a_change_is_shown_again_by_the_cancellation(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I need to change my booking RK309911", "expect": {"step": "ask_day"}},
        {"user": "actually forget it, I'd rather cancel the booking",
         "expect": {"scenario": "cancel_booking", "step": "confirm", "tool_calls": [],
                    "response_contains": "Shall I cancel booking RK309911?"}},
        {"user": "yes", "expect": {"tool_calls": {"cancel_booking": {"booking_ref": "RK309911"}}}},
    ], "kept")


def test_a_flow_that_would_act_without_showing_the_value_asks_for_it_again(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I need to change my booking RK309911", "expect": {"step": "ask_day"}},
        {"user": "actually forget it, just email me the invoice instead",
         "expect": {"scenario": "invoice", "step": "ask_ref", "tool_calls": [], "response_contains": "which booking"}},
    ], "asked again")
