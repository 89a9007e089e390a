"""JSON parsing with size and nesting limits checked before any parsing work.

`json.loads` recurses once per nesting level, so a few kilobytes of `[[[[...` end in RecursionError;
a body is therefore measured and scanned (linearly, skipping string contents) before it is parsed.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any


class BodyRejected(ValueError):
    """A body refused before parsing; `status` and `code` are what an HTTP route answers with."""

    status = 400
    code = "bad_body"


class BodyTooLarge(BodyRejected):
    status = 413
    code = "body_too_large"


class BodyTooDeep(BodyRejected):
    status = 400
    code = "body_too_deep"


class NumberTooLong(BodyRejected):
    """A number Python will not convert (more digits than `sys.get_int_max_str_digits()`, 4300 by default)."""


# The only characters that matter to nesting: brackets, and the quotes and escapes that delimit strings.
_TOKEN = re.compile(r'["\\\[\]{}]')


def nesting_depth_exceeds(text: str, max_depth: int) -> bool:
    """True if arrays/objects in `text` nest deeper than `max_depth`; brackets inside strings don't count."""
    depth = 0
    in_string = False
    escaped_at = -1  # the index of the character a backslash escapes
    for match in _TOKEN.finditer(text):
        at, ch = match.start(), match.group()
        if at == escaped_at:
            continue
        if in_string:
            if ch == "\\":
                escaped_at = at + 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > max_depth:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def loads_bounded(text: str | bytes, *, max_bytes: int, max_depth: int = 64) -> Any:
    """`json.loads` after refusing a body over `max_bytes` (BodyTooLarge) or nested over `max_depth` (BodyTooDeep).

    Other malformed JSON raises `json.JSONDecodeError` as usual (also a ValueError); an integer too long for
    Python to convert (a plain ValueError from `json.loads`) raises NumberTooLong, a BodyRejected (400).
    """
    # a str has at least as many UTF-8 bytes as characters, so a long one is refused without encoding it
    size = len(text) if isinstance(text, bytes) or len(text) > max_bytes else len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise BodyTooLarge(f"the body is larger than {max_bytes} bytes, the limit")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BodyRejected(f"the body is not valid UTF-8: {exc}") from exc
    if nesting_depth_exceeds(text, max_depth):
        raise BodyTooDeep(f"the body nests arrays/objects more than {max_depth} levels deep")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # the int-string conversion limit: not a JSONDecodeError
        raise NumberTooLong(f"number too long: a number in the body has more than {sys.get_int_max_str_digits()} "
                            "digits") from None
