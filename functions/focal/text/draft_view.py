"""A draft as enforcement reads it without a model: focal.text's views, and the way a model presents figures.

The amount reader, the boolean and typed field reading, the agents' field patterns (an echoed card number), entity
lists (names a rule forbids), the tripwires and the grounding claims all read `as_checked(draft)`, never the raw
text, so a character the customer cannot see or tell apart changes nothing they read: it is focal.text's check view
(the one pre-validation and the masking rules read: compatibility forms, invisible characters, digits of any script,
one space and one dash, Latin look-alikes in Latin words as Latin letters without accents), and besides

- emphasis markup (**, __, `, <b>, <em>…) dropped ("**4111** **1111**" is "4111 1111");
- between digits an underscore or a dash spaced out between groups of four as "-", a run of spaces as one.

`as_read(draft)` is the same on focal.text's reader view (words keep their script and accents): for telling which
language a draft is in. The answer sent is never changed: only what the checks read.
"""

from __future__ import annotations

import re

from focal.text.views import check_view, reader_view

# Presentation markup that changes nothing the customer reads ("**4111** **1111**"), spaces run together between
# digit groups ("4111   1111") and a dash spaced out between groups of four ("4111 - 1111"; not "B2001 - 100%").
_MARKUP = re.compile(r"\*\*(?P<a>[^*\s](?:[^*]*[^*\s])?)\*\*|__(?P<b>[^_\s](?:[^_]*[^_\s])?)__|`|</?(?:b|strong|em|i|span)>", re.I)
_DIGIT_GAP = re.compile(r"(?<=\d{4}) +- +(?=\d{4})|(?<=\d)(?: {2,}|\t+)(?=\d)")
_DIGIT_UNDERSCORE = re.compile(r"(?<=\d)_+(?=\d)")


def _presented(text: str) -> str:
    text = _MARKUP.sub(lambda m: m.group("a") or m.group("b") or "", text)  # "****" stays
    return _DIGIT_GAP.sub(lambda m: "-" if "-" in m.group(0) else " ", _DIGIT_UNDERSCORE.sub("-", text))


def as_checked(text: str) -> str:
    """`text` as enforcement's checks read it (see the module)."""
    return _presented(check_view(text))


def as_read(text: str) -> str:
    """`text` as a reader reads it, words in their own script and accents (see the module)."""
    return _presented(reader_view(text))
