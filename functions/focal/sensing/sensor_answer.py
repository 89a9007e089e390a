"""What makes a sensor model's answer no reading at all, before it is validated.

Small models echo the prompt back (a `<data>` block, the brief's keys, long stretches of the
instructions or the scenarios) and loop until the token limit. Such an answer is no reading: the
offline one stands, the trace says why, and it is never retried (sending it back, or a longer prompt,
gets the same echo again).
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

# Keys of the prompt's data block that no answer has: an answer using one is the prompt coming back.
ECHO_KEYS = ("customer_message", "asking_for_slots", "active_flow", "active_step", "scenarios", "fields",
             "examples", "allowed_values", "earlier_turn", "condition", "context", "label", "description")
_ECHO_KEY = re.compile(r'"(?:' + "|".join(ECHO_KEYS) + r')"\s*:')
_DATA_TAG = re.compile(r"<\s*/?\s*data\b|\\u003c/?data\b|&lt;/?data\b", re.IGNORECASE)
SPAN = 60  # characters of prompt text repeated verbatim that make an echo
LOOP_MIN_CHARS = 400  # a shorter answer is not judged for looping
LOOP_RATIO = 0.2  # compressed size / size below this: the answer repeats itself


def _flat(text: str) -> str:
    return " ".join(text.split())


def _leaves(payload: Any) -> list[str]:
    if isinstance(payload, str):
        return [payload]
    if isinstance(payload, dict):
        return [s for v in payload.values() for s in _leaves(v)]
    if isinstance(payload, list):
        return [s for v in payload for s in _leaves(v)]
    return []


def prose(messages: list[dict[str, str]], message: str) -> list[str]:
    """The prompt's texts an answer has no reason to repeat: the instructions and every text of the data
    blocks (earlier turns, examples, descriptions, conditions), the customer's message excepted."""
    out: list[str] = []
    for m in messages:
        content = m.get("content", "")
        if not content.startswith("<data"):
            out.append(content)
            continue
        body = content.split("\n", 1)[-1].rsplit("\n</data>", 1)[0]
        try:
            out += _leaves(json.loads(body))
        except ValueError:
            out.append(body)
    own = _flat(message)
    return [t for t in (_flat(x) for x in out) if len(t) >= SPAN and t != own]


def echo_reason(answer: str, messages: list[dict[str, str]], message: str) -> str | None:
    """Why `answer` repeats the prompt (None: it does not). Quoting the customer's own message is no echo."""
    if _DATA_TAG.search(answer):
        return "it contains a <data> block"
    key = _ECHO_KEY.search(answer)
    if key:
        return f"it repeats the prompt's key {key.group(0).rstrip(': ').strip()}"
    try:
        said = _flat(" ".join(_leaves(json.loads(answer))))
    except ValueError:
        said = _flat(answer)
    if len(said) < SPAN:
        return None
    texts = prose(messages, message)
    for start in range(0, len(said) - SPAN + 1, SPAN // 2):
        span = said[start:start + SPAN]
        if any(span in t for t in texts):
            return f"it repeats {SPAN}+ characters of the prompt verbatim"
    return None


def loop_reason(answer: str, output_tokens: int, max_tokens: int | None) -> str | None:
    """Why `answer` is a model running on to its limit (None: it is not)."""
    if max_tokens and output_tokens >= max_tokens:
        return f"it stopped at the {max_tokens}-token limit"
    if len(answer) >= LOOP_MIN_CHARS and len(zlib.compress(answer.encode())) / len(answer.encode()) < LOOP_RATIO:
        return "it repeats itself"
    return None


def repeated_entry(answer: dict[str, Any]) -> str | None:
    """Why the parsed answer is a loop that the schema's list bound closed (None: it is not). Under a grammar with
    `maxItems`, a looping model writes the same entry until the bound and the list closes into valid JSON too short
    for `loop_reason` to hear (a small model wrote `{"name": "CancelFlow", "flow": null, …}` over and over to a
    payment request, which then stopped the customer's request). A reading never needs one command or condition twice,
    word for word: an answer that repeats one is no reading."""
    for key in ("commands", "conditions"):
        entries = answer.get(key)
        if not isinstance(entries, list):
            continue
        seen = [json.dumps(e, sort_keys=True) for e in entries]
        if len(set(seen)) < len(seen):
            return f"it repeats an entry of {key} word for word (a loop the list's bound closed)"
    return None
