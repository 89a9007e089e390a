"""Bounded retries with jittered exponential backoff for remote tools (http, lambda).

Only transient failures are retried (timeouts, 5xx / throttling, connection errors), and only for
tools that may repeat: not side-effecting, or declared `idempotent`. `Tool.retries` ≤ 3.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

from focal.errors import ToolError
from focal.models.agent import Tool

log = logging.getLogger(__name__)
T = TypeVar("T")

BACKOFF_BASE_S = 0.2
BACKOFF_CAP_S = 2.0


class TransientToolError(ToolError):
    """A failure worth another attempt (when the tool allows it)."""


def backoff_s(attempt: int, base_s: float = BACKOFF_BASE_S) -> float:
    """Full-range jitter around base·2^attempt, capped."""
    return min(BACKOFF_CAP_S, base_s * (2**attempt)) * random.uniform(0.5, 1.5)  # noqa: S311 - not crypto


def with_retries(tool: Tool, attempt: Callable[[], T], *, sleep: Callable[[float], None] = time.sleep,
                 base_s: float = BACKOFF_BASE_S) -> T:
    attempts = 1 + (tool.retries if tool.may_retry else 0)
    for n in range(attempts):
        try:
            return attempt()
        except TransientToolError as exc:
            if n + 1 >= attempts:
                if attempts > 1:
                    raise ToolError(f"{exc} (after {attempts} attempts)") from None
                raise ToolError(str(exc)) from None
            log.info("tool %s: attempt %d of %d failed (%s); retrying", tool.id, n + 1, attempts, type(exc).__name__)
            sleep(backoff_s(n, base_s))
    raise AssertionError("unreachable")


def json_object(tool_id: str, raw: bytes, max_bytes: int, null_is_empty: bool = False) -> dict[str, Any]:
    """A remote tool's answer: a JSON object (an empty body is {}), or a ToolError that says why."""
    if len(raw) > max_bytes:
        raise ToolError(f"tool {tool_id!r}: response is larger than {max_bytes} bytes")
    if not raw.strip():
        return {}
    try:
        result = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise ToolError(f"tool {tool_id!r}: response is not valid JSON") from None
    if result is None and null_is_empty:
        return {}
    if not isinstance(result, dict):
        raise ToolError(f"tool {tool_id!r}: response is JSON {type(result).__name__}, expected an object")
    return result
