"""A customer's message cut into sentences, the way the value readers need it."""

from __future__ import annotations

import re

_SENTENCE = re.compile(r"(?:\d\.\d|[^.!?\n])+[.!?]?")  # "$49.99" does not end a sentence


def sentences(text: str) -> list[str]:
    """The text's sentences in order, stripped ("$49.99" does not end one; "¿…?" is one)."""
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


def hinted_sentences(text: str, hints: list[str]) -> list[str]:
    """The sentences a value may come from: all of them (the whole text when it has none), or those naming a hint."""
    sentences_ = sentences(text) or [text]
    if not hints:
        return sentences_
    lowered = [h.lower() for h in hints]
    return [s for s in sentences_ if any(h in s.lower() for h in lowered)]
