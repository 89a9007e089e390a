"""The retry policies of remote tools (adapters/tool_retry.py) and OpenSearch requests (adapters/opensearch_retry.py):
which failures are retried, how often, how long each wait is — with time and sleeping injected, nothing slept."""

from __future__ import annotations

import random

import pytest

from focal.adapters.opensearch_retry import MIN_ATTEMPT_S, WRITE, Bounds, bounded
from focal.adapters.tool_retry import BACKOFF_CAP_S, TransientToolError, with_retries
from focal.errors import ToolError, ToolOutcomeUnknown
from focal.models.agent import Tool


def tool(**overrides) -> Tool:
    return Tool.model_validate({"id": "lookup", "kind": "http", "url": "http://127.0.0.1:1/orders/{order_id}",
                                "input": {"order_id": {"type": "id"}}, "timeout_s": 2, **overrides})


def failing(times: int, error: Exception):
    calls: list[int] = []

    def attempt() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise error
        return "ok"
    return attempt, calls


@pytest.mark.parametrize("jitter", ["low", "high"])
def test_tool_backoff_grows_is_jittered_and_never_passes_the_cap(monkeypatch, jitter):
    monkeypatch.setattr(random, "uniform", lambda a, b: a if jitter == "low" else b)  # each end of every jitter range
    sleeps: list[float] = []
    attempt, calls = failing(3, TransientToolError("tool 'lookup' timed out"))
    assert with_retries(tool(retries=3), attempt, sleep=sleeps.append, base_s=1.5) == "ok"
    assert len(calls) == 4 and len(sleeps) == 3
    assert all(0 < s <= BACKOFF_CAP_S for s in sleeps) and sleeps == sorted(sleeps)


def test_tool_retries_run_out_with_the_count_in_the_error_and_other_errors_are_not_retried():
    sleeps: list[float] = []
    attempt, calls = failing(9, TransientToolError("tool 'lookup' timed out"))
    with pytest.raises(ToolError, match=r"timed out \(after 3 attempts\)$") as raised:
        with_retries(tool(retries=2), attempt, sleep=sleeps.append)
    # a timeout may have reached the tool: its outcome is unknown
    assert type(raised.value) is ToolOutcomeUnknown and len(calls) == 3 and len(sleeps) == 2
    attempt, calls = failing(9, TransientToolError("tool 'lookup': host could not be resolved", maybe_sent=False))
    with pytest.raises(ToolError, match=r"resolved \(after 3 attempts\)$") as raised:
        with_retries(tool(retries=2), attempt, sleep=sleeps.append)
    assert type(raised.value) is ToolError and len(calls) == 3  # nothing was sent: it did not happen
    attempt, calls = failing(9, ToolError("tool 'lookup': response is not valid JSON"))
    with pytest.raises(ToolError, match="not valid JSON"):
        with_retries(tool(retries=2), attempt, sleep=sleeps.append)
    assert len(calls) == 1


def test_a_side_effecting_call_is_made_once_unless_idempotent():
    sleeps: list[float] = []
    attempt, calls = failing(1, TransientToolError("tool 'refund' timed out"))
    with pytest.raises(ToolError, match=r"timed out$"):
        with_retries(tool(retries=3, side_effect=True, method="POST"), attempt, sleep=sleeps.append)
    assert len(calls) == 1 and sleeps == []
    attempt, calls = failing(1, TransientToolError("tool 'refund' timed out"))
    assert with_retries(tool(retries=3, side_effect=True, idempotent=True, method="POST"), attempt, sleep=sleeps.append) == "ok"
    assert len(calls) == 2 and len(sleeps) == 1


class _Unavailable(Exception):
    status_code = 503


def test_an_opensearch_write_retries_once_after_a_jittered_backoff_within_its_deadline():
    clock, sleeps, timeouts = [0.0], [], []

    def call(**params):
        timeouts.append(params["request_timeout"])
        clock[0] += 1.0
        raise _Unavailable()

    with pytest.raises(_Unavailable):
        bounded(call, WRITE, sleep=lambda s: (sleeps.append(s), clock.__setitem__(0, clock[0] + s)), clock=lambda: clock[0])
    assert timeouts == [WRITE.timeout_s, WRITE.timeout_s] and len(sleeps) == 1
    assert WRITE.backoff_s / 2 <= sleeps[0] <= WRITE.backoff_s


def test_no_opensearch_attempt_starts_without_time_left_and_the_last_one_gets_what_is_left(monkeypatch):
    monkeypatch.setattr(random, "uniform", lambda a, b: (a + b) / 2)
    bounds = Bounds(timeout_s=2.0, attempts=5, deadline_s=5.0, backoff_s=0.1)
    clock, timeouts = [0.0], []

    def call(**params):
        timeouts.append(params["request_timeout"])
        clock[0] += params["request_timeout"]
        raise TimeoutError("read timed out")

    with pytest.raises(TimeoutError):
        bounded(call, bounds, sleep=lambda s: clock.__setitem__(0, clock[0] + s), clock=lambda: clock[0])
    assert timeouts[:2] == [2.0, 2.0] and len(timeouts) == 3 and MIN_ATTEMPT_S <= timeouts[2] < 1.0
    assert clock[0] <= bounds.deadline_s
