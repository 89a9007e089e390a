"""The idempotency key of a side-effecting tool call: the sha256 (hex) of a canonical JSON of tenant,
session, turn id, tool id and arguments.

The same call in the same turn (a retried stage, a replayed turn) gives the same key, so the tool's
own system can recognise the repeat; any other turn, tool or argument value gives another. The
sequence of arguments does not matter (keys are sorted at every level). Values JSON cannot write are written as
their `str`. The key identifies a call, so like the arguments it is never logged.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_call(tenant_id: str, session_id: str, turn_id: str, tool_id: str, arguments: dict[str, Any]) -> str:
    """The JSON text the key is the hash of (compact, keys sorted, UTF-8 as is)."""
    call = {"tenant": tenant_id, "session": session_id, "turn": turn_id, "tool": tool_id, "arguments": arguments}
    return json.dumps(call, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def idempotency_key(tenant_id: str, session_id: str, turn_id: str, tool_id: str, arguments: dict[str, Any]) -> str:
    """64 lowercase hex characters."""
    text = canonical_call(tenant_id, session_id, turn_id, tool_id, arguments)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
