"""Bounded retries with jittered exponential backoff for remote tools (http, lambda), run by tenacity.

Only transient failures are retried (timeouts, 5xx / throttling, connection errors), and only for
tools that may repeat: not side-effecting, or declared `idempotent`. `Tool.retries` ≤ 3.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

from focal.errors import ToolError, ToolOutcomeUnknown
from focal.models.agent import Tool

log = logging.getLogger(__name__)
T = TypeVar("T")

BACKOFF_BASE_S = 0.2
BACKOFF_CAP_S = 2.0


class TransientToolError(ToolError):
    """A failure worth another attempt (when the tool allows it). `maybe_sent`: the request may have reached the
    tool (a timeout, a connection lost, a server error), so when no attempt is left the outcome is unknown."""

    def __init__(self, message: str, *, maybe_sent: bool = True):
        super().__init__(message)
        self.maybe_sent = maybe_sent


def backoff(base_s: float = BACKOFF_BASE_S) -> wait_exponential_jitter:
    """base·2^(n-1) before the n-th retry plus up to `base_s` of jitter, never more than BACKOFF_CAP_S."""
    return wait_exponential_jitter(multiplier=base_s, max=BACKOFF_CAP_S, jitter=base_s)


def with_retries(tool: Tool, attempt: Callable[[], T], *, sleep: Callable[[float], None] = time.sleep,
                 base_s: float = BACKOFF_BASE_S) -> T:
    attempts = 1 + (tool.retries if tool.may_retry else 0)

    def note(state: RetryCallState) -> None:
        failure = state.outcome.exception() if state.outcome else None
        log.info("tool %s: attempt %d of %d failed (%s); retrying", tool.id, state.attempt_number, attempts,
                 type(failure).__name__)

    retrying = Retrying(stop=stop_after_attempt(attempts), wait=backoff(base_s), sleep=sleep,
                        retry=retry_if_exception_type(TransientToolError), before_sleep=note, reraise=True)
    try:
        return retrying(attempt)
    except TransientToolError as exc:
        failure = ToolOutcomeUnknown if exc.maybe_sent else ToolError
        raise failure(f"{exc} (after {attempts} attempts)" if attempts > 1 else str(exc)) from None


def json_object(tool_id: str, raw: bytes, max_bytes: int, null_is_empty: bool = False) -> dict[str, Any]:
    """A remote tool's successful answer: a JSON object (an empty body is {}), or a ToolOutcomeUnknown that says why
    it cannot be read (the tool answered success: what it does happened, what it returned is lost)."""
    if len(raw) > max_bytes:
        raise ToolOutcomeUnknown(f"tool {tool_id!r}: response is larger than {max_bytes} bytes")
    if not raw.strip():
        return {}
    try:
        result = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise ToolOutcomeUnknown(f"tool {tool_id!r}: response is not valid JSON") from None
    if result is None and null_is_empty:
        return {}
    if not isinstance(result, dict):
        raise ToolOutcomeUnknown(f"tool {tool_id!r}: response is JSON {type(result).__name__}, expected an object")
    return result
