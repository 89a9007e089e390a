"""Bounded OpenSearch requests: a timeout per attempt, a few attempts, and a total deadline (run by tenacity).

The client itself does not retry (`max_retries=0`): opensearch-py's transport would repeat a timed-out
request with the same full timeout, which outlived the retrieve Lambda (5 s × 3 tries > 10 s). Instead:

- a search (the turn's path): `SEARCH` = 2 s per attempt, 2 attempts, 4.5 s in all, so the stage
  degrades (no candidates, `degraded: ["retrieval"]`, every in-scope hard constraint still enforced
  from the config) well inside its 10 s timeout;
- a write (publishing: bulk, create, delete): `WRITE` = 10 s per attempt, 2 attempts, 22 s in all,
  inside the publish function's 29 s.

Only what may pass on a second try is retried: connection errors and timeouts, 429 and 502/503/504.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter
from tenacity.stop import stop_base

T = TypeVar("T")
RETRY_STATUS = (429, 502, 503, 504)
MIN_ATTEMPT_S = 0.3


@dataclass(frozen=True)
class Bounds:
    timeout_s: float
    attempts: int
    deadline_s: float
    backoff_s: float = 0.1  # the first retry waits between half of it and all of it


SEARCH = Bounds(timeout_s=2.0, attempts=2, deadline_s=4.5)
WRITE = Bounds(timeout_s=10.0, attempts=2, deadline_s=22.0, backoff_s=0.5)


def transient(exc: BaseException) -> bool:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in RETRY_STATUS
    # opensearch-py: ConnectionError (status "N/A") and its ConnectionTimeout; urllib3/requests alike
    return "Connection" in type(exc).__name__ or "Timeout" in type(exc).__name__ or isinstance(exc, TimeoutError)


class OutOfTime(stop_base):
    """Stop when the next attempt would start, after its backoff, with less than MIN_ATTEMPT_S of the deadline left."""

    def __init__(self, end: float, clock: Callable[[], float]) -> None:
        self.end, self.clock = end, clock

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self.end - self.clock() - retry_state.upcoming_sleep < MIN_ATTEMPT_S


def bounded(call: Callable[..., T], bounds: Bounds, *, sleep: Callable[[float], None] = time.sleep,
            clock: Callable[[], float] = time.monotonic, **kwargs: Any) -> T:
    """`call(**kwargs, request_timeout=…)` within `bounds`; the last error is raised when they are spent.

    opensearch-py's own retries (`max_retries`, `retry_on_timeout`) repeat a request with the same full timeout and
    know no deadline, so tenacity runs the attempts: each one's timeout is what is left of the deadline (at most
    `timeout_s`), and no attempt starts with less than MIN_ATTEMPT_S left after its backoff."""
    end = clock() + bounds.deadline_s
    retrying = Retrying(stop=stop_after_attempt(bounds.attempts) | OutOfTime(end, clock), retry=retry_if_exception(transient),
                        wait=wait_exponential_jitter(multiplier=bounds.backoff_s / 2, jitter=bounds.backoff_s / 2),
                        sleep=sleep, reraise=True)
    return retrying(lambda: call(**kwargs, request_timeout=min(bounds.timeout_s, end - clock())))
