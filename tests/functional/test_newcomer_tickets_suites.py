"""The event-ticketing desk a newcomer wrote blind (session 14, tests/data/newcomer_tickets, see its README) keeps
passing its English, Spanish and German suites: refunds of a cancelled concert (89.50 after a yes, 89,50 in Spanish)
behind an identity check (booking reference, email on file, last four card digits), a postponed play's €120 waiting
for approval, €1,250.50 handed to a person, a match that goes ahead offered resale instead; transfers to a named
recipient (its email corrected at the confirmation), an impostor refused; tickets resent to the masked email on
file; seat changes to the balcony and a sold-out circle; wheelchair spaces and companion tickets "this Saturday at
7:30pm", "am 14. März um 20 Uhr"; policy questions (a postponed show, resale fee, age limits, bags, consumer rights,
card details, resale sites) answered by their rules rather than a flow; a safety incident given 112 and a person; a
person asked for inside a flow; scripted drafts promising €1,250.50, a voucher, a free upgrade, naming a resale site,
asking for a CVV or giving legal advice never sent. The conversations that fail are kept apart in
tests.known_failures.yaml (not run here).

One warmed agent serves every conversation of the three suites and of the findings below (the embedder, configs and
rule index are shared; each conversation has its own stores)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from focal.cli.conversation_tests import (
    TENANT_ID,
    Report,
    _fresh_deps,
    format_report,
    load_agent,
    read_suite,
    run_conversation,
)
from focal.pipeline.warm import warm_agent

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_tickets"
AGENT = DESK / "agent.yaml"


@pytest.fixture(scope="module")
def warmed() -> tuple[Any, Any]:
    agent = load_agent(AGENT)
    deps = _fresh_deps(AGENT, None)
    warm_agent(deps, TENANT_ID, agent)
    return agent, deps


@pytest.mark.parametrize("suite", ["tests.yaml", "tests.es.yaml", "tests.de.yaml"])
def test_the_newcomer_ticket_desk_suite_passes(warmed: tuple[Any, Any], suite: str) -> None:
    agent, shared = warmed
    checked = read_suite(DESK / suite, agent)
    report = Report(agent_path=str(AGENT), suite_path=checked.path, tasks_total=checked.tasks_total)
    for index, conv in enumerate(checked.conversations):
        report.conversations.append(run_conversation(conv, agent, _fresh_deps(AGENT, shared), f"tickets-{suite}-{index}"))
    assert len(report.conversations) >= 8 and report.passed, "\n" + format_report(report)


def _run(warmed: tuple[Any, Any], tmp_path: Path, suite_yaml: str) -> Report:
    agent, shared = warmed
    path = tmp_path / "suite.yaml"
    path.write_text(suite_yaml, encoding="utf-8")
    checked = read_suite(path, agent)
    report = Report(agent_path=str(AGENT), suite_path=checked.path, tasks_total=checked.tasks_total)
    for index, conv in enumerate(checked.conversations):
        report.conversations.append(run_conversation(conv, agent, _fresh_deps(AGENT, shared), f"finding-{index}"))
    return report


# Defects the desk found (fix/newcomer-s14), each through the real pipeline on the shipped defaults.

TRANSFER_CONFIRMED = """
conversations:
  - name: transferring tickets is no refund promise, and the address ending a sentence is the recipient's
    setup: tools.py:reset_state
    turns:
      - user: I want to transfer my ticket to a friend
      - user: TK551204
      - user: jonas.weber@example.de
      - user: "7730"
      - user: Lena Fischer
      - user: lena.fischer@example.de
        expect: {step: confirm, violations: [], fallback_used: false, response_contains: "I'll transfer the tickets"}
      - user: "yes"
        expect: {tool_calls: [transfer_ticket], violations: [], fallback_used: false,
                 response_contains: ["lena.fischer@example.de. Reference TR-1204"]}
"""


def test_a_transfer_of_tickets_is_confirmed_and_said_done(warmed: tuple[Any, Any], tmp_path: Path) -> None:
    # Was: the confirmation "I'll transfer the tickets of booking TK551204 to Lena …" read as promising the whole
    # amount of the tickets (the built-in cue "transfer" with the agent's purchase word "tickets") and blocked by the
    # refund cap; then "… on their way to lena.fischer@example.de. Reference TR-1204." read the address as
    # "lena.fischer@example.de. Reference", which nobody gave, and the done answer was replaced by an apology.
    report = _run(warmed, tmp_path, TRANSFER_CONFIRMED)
    assert report.passed, "\n" + format_report(report)


CHANGE_OF_MIND = """
conversations:
  - name: forgetting the refund inside its identity check does not start the refund again
    setup: tools.py:reset_state
    turns:
      - user: I want a refund for my ticket
        expect: {scenario: verify_customer}
      - user: actually forget the refund, can you just resend my tickets instead?
        expect: {scenario: null, tool_calls: [], response_contains: "stopped that (Refund a ticket)",
                 response_not_contains: [booking reference, Verify the ticket holder]}
"""


def test_forgetting_a_request_inside_the_flow_it_called_does_not_restart_it(warmed: tuple[Any, Any],
                                                                             tmp_path: Path) -> None:
    # Was: the identity check the refund called was cancelled, and the same message (it names "the refund") started
    # the refund again, since only the called flow counted as the one in progress: "Okay, I've stopped that. What is
    # your booking reference?" — and the notice named the check ("Verify the ticket holder"), not the request stopped.
    report = _run(warmed, tmp_path, CHANGE_OF_MIND)
    assert report.passed, "\n" + format_report(report)


CORRECTED_RECIPIENT = """
conversations:
  - name: a new address at the confirmation corrects the one the question shows, never the one the check holds
    setup: tools.py:reset_state
    turns:
      - user: Can I give my tickets to someone else?
      - user: TK551204
      - user: jonas.weber@example.de
      - user: "7730"
      - user: Tom Baker
      - user: tom.baker@example.com
        expect: {step: confirm, response_contains: tom.baker@example.com}
      - user: sorry, his email is actually tbaker@example.org
        expect: {step: confirm, tool_calls: [], response_contains: "Tom Baker (tbaker@example.org)"}
      - user: "yes"
        expect: {tool_calls: {transfer_ticket: {booking_ref: TK551204, recipient_email: tbaker@example.org}}}
"""


def test_a_corrected_address_goes_to_the_slot_the_confirmation_shows(warmed: tuple[Any, Any], tmp_path: Path) -> None:
    # Was: the address fits the check's `email` and the transfer's `recipient_email` (one pattern); "his email" was read
    # as naming `email` (the word is in both names), the value went to neither, and the recipient's email was forgotten
    # and asked again.
    report = _run(warmed, tmp_path, CORRECTED_RECIPIENT)
    assert report.passed, "\n" + format_report(report)
