"""How a failed tool call is recorded (`failure_status`) and what a failed action is (`outcome`).

`error` only when nothing of the call took effect; `unknown` when a side-effecting call may have. A read-only call is
never `unknown`: there is nothing to be unsure about."""

from __future__ import annotations

import pytest

from focal.adapters.tool_retry import TransientToolError, with_retries
from focal.dialogue.action_outcome import outcome, remember_unknown, unknown_before
from focal.dialogue.tool_calls import failure_status
from focal.errors import ToolError, ToolInputInvalid, ToolOutcomeUnknown, ToolOutputInvalid
from focal.models.agent import AgentConfig, Tool
from focal.models.session import Session
from focal.models.turn import ToolCall

REFUND = Tool(id="refund", kind="python", entrypoint="tools.py:refund", side_effect=True)
LOOKUP = Tool(id="lookup", kind="python", entrypoint="tools.py:lookup")
CREDIT = Tool(id="credit", kind="python", entrypoint="tools.py:credit", side_effect=True, idempotent=True)
AGENT = AgentConfig.model_validate({"id": "a", "name": "A",
                                    "tools": [REFUND.model_dump(), LOOKUP.model_dump(), CREDIT.model_dump()]})


@pytest.mark.parametrize("failure, answered, status", [
    (ToolError("tool 'refund': HTTP 409"), False, "error"),  # refused: nothing happened
    (ToolInputInvalid("tool 'refund': argument 'amount' must be a number", argument="amount"), False, "error"),
    (ToolOutcomeUnknown("tool 'refund' timed out after 10s"), False, "unknown"),  # sent, then no answer
    (ToolOutputInvalid("tool 'refund': output 'ref' does not fit", output="ref", variable="ref"), True, "unknown"),
    (RuntimeError("boom"), False, "unknown"),  # the runner failed without saying how far it got
])
def test_a_side_effecting_call_is_unknown_only_when_it_may_have_taken_effect(failure, answered, status):
    assert failure_status(REFUND, failure, answered) == status


@pytest.mark.parametrize("failure", [ToolOutcomeUnknown("timed out"), RuntimeError("boom"), ToolError("HTTP 500")])
def test_a_read_only_call_that_fails_is_an_error(failure):
    assert failure_status(LOOKUP, failure, answered=True) == "error"


def test_a_transient_failure_that_may_have_been_sent_is_unknown_when_the_attempts_run_out():
    def timed_out() -> None:
        raise TransientToolError("tool 'refund' timed out")

    def unresolved() -> None:
        raise TransientToolError("tool 'refund': host could not be resolved", maybe_sent=False)

    with pytest.raises(ToolOutcomeUnknown):
        with_retries(REFUND, timed_out, sleep=lambda _: None)
    with pytest.raises(ToolError) as raised:
        with_retries(REFUND, unresolved, sleep=lambda _: None)
    assert type(raised.value) is ToolError


def call(tool_id: str, status: str) -> ToolCall:
    return ToolCall(tool_id=tool_id, status=status)  # type: ignore[arg-type]


def test_an_action_is_done_failed_or_unknown_as_a_whole():
    assert outcome(AGENT, [call("lookup", "ok"), call("refund", "ok")]) == "done"
    assert outcome(AGENT, [call("lookup", "ok"), call("refund", "error")]) == "failed"
    assert outcome(AGENT, [call("refund", "unknown")]) == "unknown"
    # a side effect ran before the next call failed: running the action again would repeat it
    assert outcome(AGENT, [call("refund", "ok"), call("lookup", "error")]) == "unknown"


def _call(tool_id: str, status: str = "unknown", **arguments) -> ToolCall:
    return ToolCall(tool_id=tool_id, trigger="step refund.confirm", arguments=arguments, status=status)


def test_a_call_whose_outcome_is_unknown_is_known_again_by_its_tool_and_arguments_only():
    session = Session(tenant_id="t", agent_id="a", session_id="s", customer_id="c")
    remember_unknown(session, [_call("refund", order="A1", amount=30), _call("lookup", status="ok", order="A1")])
    assert len(session.unknown_calls) == 1 and "A1" not in session.unknown_calls[0]
    assert unknown_before(AGENT, session, [_call("refund", amount=30, order="A1")])
    assert not unknown_before(AGENT, session, [_call("refund", order="A1", amount=31)])
    assert not unknown_before(AGENT, session, [_call("refund", order="A2", amount=30)])


def test_an_idempotent_tool_whose_outcome_is_unknown_may_run_again():
    session = Session(tenant_id="t", agent_id="a", session_id="s", customer_id="c")
    remember_unknown(session, [_call("credit", order="A1")])
    assert session.unknown_calls and not unknown_before(AGENT, session, [_call("credit", order="A1")])
