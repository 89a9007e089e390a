"""Events (the local events.jsonl, EventBridge in AWS) carry no personal data.

Red-team finding: a guard's reason prints the values it read, and a tool's error message may quote
its arguments, so a `pii: true` phone number reached `action_blocked` and `tool_result` events in
clear although the turn records masked it. Events now name the guard rules and the error's kind only.
"""

from __future__ import annotations

from pathlib import Path

from focal.dialogue.approvals import error_kind
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

AGENT = """
id: callbacks
name: Callbacks
description: Books a callback to the customer's phone.
persona: You book callbacks.
greeting: Hi, I can book a callback.
out_of_scope_message: I can book a callback.
profile_field_definitions:
  - {field_name: phone, display_name: Phone, field_type: string, sources: [message], pii: true}
  - {field_name: callback_ref, field_type: string, sources: [tool]}
tools:
  - id: book_callback
    kind: python
    entrypoint: 'tools.py:book_callback'
    description: Book a callback to a phone number.
    input: {phone: {type: string}}
    output: {reference: callback_ref}
    side_effect: true
    idempotent: true
scenarios:
  - id: callback
    name: Book a callback
    entry_examples: [Please call me back, I want a callback, Can someone phone me]
    entry_step_id: ask_phone
    steps:
      - id: ask_phone
        instructions: Ask for the phone number.
        slots: [{name: phone, type: string, prompt: "Which phone number should we call?"}]
        action: [book_callback]
        transitions: [{target: done}]
      - {id: done, instructions: Confirm the booking., response_template: "Booked (reference {callback_ref})."}
rules:
  - id: local_numbers_only
    condition_text: A callback is about to be booked
    action_text: Only book callbacks to numbers starting with +44.
    is_hard_constraint: true
    guarded_tool_ids: [book_callback]
    enforcement_expression: contains(phone, '+44')
    response_template: We can only call local numbers, so nothing was booked.
"""
TOOLS = "def book_callback(phone: str) -> dict:\n    raise ValueError(f'the exchange refused {phone}')\n"
BLOCKED, FAILING = "+1 212 555 0147", "+44 161 496 0732"


def test_blocked_and_failed_calls_publish_no_phone_number(tmp_path: Path):
    (tmp_path / "agent.yaml").write_text(AGENT)
    (tmp_path / "tools.py").write_text(TOOLS)
    deps = local_deps(tmp_path / "agent.yaml", tmp_path / "state" / "focal.db")
    runner = LocalRunner(deps)
    outcomes = []
    for session, phone in (("s1", BLOCKED), ("s2", FAILING)):
        for n, message in enumerate(("Please call me back", phone)):
            result = runner.turn(TurnRequest(tenant_id="t1", agent_id="callbacks", session_id=session,
                                             customer_id="c-1", turn_id=f"{session}-{n}", message=message))
        outcomes.append([(c["tool_id"], c["status"]) for c in result.tool_calls])
    assert outcomes == [[("book_callback", "blocked")], [("book_callback", "error")]]

    events = (tmp_path / "state" / "events.jsonl").read_text()
    assert '"action_blocked"' in events and '"tool_result"' in events and "local_numbers_only" in events
    assert '"ValueError"' in events
    for phone in (BLOCKED, FAILING):
        assert phone not in events and phone.replace(" ", "") not in events.replace(" ", "")


def test_an_errors_kind_is_its_exception_name_never_its_message():
    assert error_kind("tool 'x' failed: ValueError: the exchange refused +44 161") == "ValueError"
    assert error_kind("http 503 from the tool endpoint") == "error"
    assert error_kind(None) is None
