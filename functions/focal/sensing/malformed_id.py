"""An id the customer gave in a shape near the field's own but not it: "TX-482913" where transaction ids are
"TX-" and four digits. Read as a value that is wrong (the step says "That doesn't look right." and asks again),
never as a message that was not understood, and never as the id.

"Near" is the field's pattern with its counts freed (`\\d{4}` → `\\d+`): same letters, separators and kinds of
character, any length. Only a token holding both letters and digits counts, so a pattern of digits alone
(`\\d{4}`) or of any word (`[A-Z0-9]{6}`) does not take every number or word for a wrong id.
"""

from __future__ import annotations

import re

from focal.sensing.extraction import PatternUnread, field_pattern

_COUNT = re.compile(r"(?<!\\)\{\d+(?:,\d*)?\}")


def _freed(pattern: str) -> str:
    return _COUNT.sub("+", pattern)


def near_miss(pattern: str, text: str) -> str | None:
    """The token of `text` in the pattern's shape but not matching it, or None (also when the pattern matches)."""
    freed = _freed(pattern)
    if freed == pattern:
        return None
    strict, loose = field_pattern(pattern, ignore_case=True), field_pattern(freed, ignore_case=True)
    if strict is None or loose is None:
        return None
    try:
        if strict.search(text) is not None:
            return None
        found = loose.finditer(text)
    except PatternUnread:
        return None
    for m in found:
        token = m.group(0)
        if any(c.isalpha() for c in token) and any(c.isdigit() for c in token):
            return token
    return None
