"""A correction never runs a side effect twice (newcomer finding).

After "yes" filed a claim and the flow moved on to its next question, "yes, but make it $1,900"
rewound to the step that collects the amount, and the next "yes" filed a second claim; the first
stayed filed and the customer was never told. Now a changed value that a side effect of this flow
already used is refused: the customer hears that it was already done and nothing new ran, then the
question the flow still waits for; a new request (a fresh start of the flow) may use new values.
"""

from __future__ import annotations

from pathlib import Path

from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

AGENT = """
id: repairs
name: Repairs
description: Books appliance repairs and issues goodwill vouchers.
persona: You book repairs.
greeting: Hi, I can book a repair.
out_of_scope_message: I can book an appliance repair.
profile_field_definitions:
  - {field_name: appliance, field_type: string, sources: [message]}
  - {field_name: quoted_cost, field_type: money, sources: [message]}
  - {field_name: booking_ref, field_type: string, sources: [tool]}
  - {field_name: voucher_ref, field_type: string, sources: [tool]}
tools:
  - id: book_repair
    kind: python
    entrypoint: 'tools.py:book_repair'
    description: Book a repair visit.
    input: {appliance: {type: string}, quoted_cost: {type: money}}
    output: {reference: booking_ref}
    side_effect: true
  - id: issue_voucher
    kind: python
    entrypoint: 'tools.py:issue_voucher'
    description: Issue a goodwill voucher.
    input: {booking_ref: {type: string}}
    output: {reference: voucher_ref}
    side_effect: true
scenarios:
  - id: repair
    name: Book a repair
    entry_examples: [My washing machine is broken, I need a repair, Can you fix my fridge]
    entry_step_id: details
    steps:
      - id: details
        instructions: Collect the appliance and the quoted cost.
        slots:
          - {name: appliance, type: string, prompt: "Which appliance is it?"}
          - {name: quoted_cost, type: money, prompt: "What cost were you quoted?"}
        transitions: [{target: confirm_booking}]
      - id: confirm_booking
        instructions: Confirm the booking.
        requires_confirmation: true
        confirmation_prompt: "Shall I book the {appliance} repair at ${quoted_cost}?"
        action: [book_repair]
        transitions: [{target: offer_voucher}]
      - id: offer_voucher
        instructions: Offer a voucher.
        requires_confirmation: true
        confirmation_prompt: "Booked ({booking_ref}). Would you like a goodwill voucher?"
        action: [issue_voucher]
        transitions: [{target: done}]
      - {id: done, instructions: Say it is done., response_template: "Your voucher is {voucher_ref}."}
  - id: status
    name: Check a repair status
    entry_examples: [What is the status of my repair, When will the technician come, Is my repair scheduled]
    entry_step_id: ask
    steps:
      - {id: ask, instructions: Give the status., response_template: "Your repair is scheduled for Monday."}
"""
TOOLS = """
CALLS = []
def book_repair(appliance, quoted_cost):
    CALLS.append(("book_repair", quoted_cost))
    return {"reference": f"BK-{len(CALLS)}"}
def issue_voucher(booking_ref):
    CALLS.append(("issue_voucher", booking_ref))
    return {"reference": "VC-1"}
"""


def converse(tmp_path: Path, messages: list[str]) -> tuple[list[list[str]], list]:
    (tmp_path / "agent.yaml").write_text(AGENT)
    (tmp_path / "tools.py").write_text(TOOLS)
    runner = LocalRunner(local_deps(tmp_path / "agent.yaml", tmp_path / "focal.db"))
    ran: list[list[str]] = []
    results = []
    for n, message in enumerate(messages):
        result = runner.turn(TurnRequest(tenant_id="t1", agent_id="repairs", session_id="s1", customer_id="c-1",
                                         turn_id=f"t{n}", message=message))
        ran.append([c["tool_id"] for c in result.tool_calls if c["status"] == "ok"])
        results.append(result)
    return ran, results


BOOKED = ["My washing machine is broken", "the washing machine", "$250", "yes"]


def test_a_correction_after_the_booking_ran_books_nothing_twice(tmp_path: Path):
    ran, results = converse(tmp_path, [*BOOKED, "yes, but make it $300", "yes"])
    assert ran[3] == ["book_repair"] and "BK-1" in results[3].response
    correction = results[4]
    assert ran[4] == [] and correction.execution_path == "rejected"
    assert "already done" in correction.response and "nothing new" in correction.response
    assert "Would you like a goodwill voucher?" in correction.response  # what the flow still waits for
    assert ran[5] == ["issue_voucher"]  # the yes answers that question; the booking is never made again
    assert [r for turn in ran for r in turn].count("book_repair") == 1


def test_a_correction_without_a_value_after_the_booking_is_refused_too(tmp_path: Path):
    """Red team: "the quoted cost is wrong" forgot the value and rewound, and the new value then came as a first one."""
    ran, results = converse(tmp_path, [*BOOKED, "the quoted cost is wrong", "$300", "yes"])
    assert "already done" in results[4].response
    assert [r for turn in ran for r in turn].count("book_repair") == 1


def test_what_a_flow_did_comes_back_with_it_after_a_digression(tmp_path: Path):
    """Red team: a digression into another flow and "yes" to resume forgot that the booking ran."""
    ran, results = converse(tmp_path, [*BOOKED, "When will the technician come?", "yes", "actually make it $300", "yes"])
    assert "scheduled for Monday" in results[4].response
    assert "already done" in results[6].response
    assert [r for turn in ran for r in turn].count("book_repair") == 1
