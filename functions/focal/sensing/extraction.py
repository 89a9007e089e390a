"""Typed value extraction from text, driven by the agent's field definitions.

Used on the customer's message (sensor) and on the draft answer (enforcement): the same
extractor reads "$75" out of "I'll refund you $75" and out of "the total was $75?".
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from focal.models.agent import ProfileFieldDefinition

_MONEY = re.compile(
    r"(?:[$€£]\s?|\b(?:usd|eur|gbp)\s?)(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)"
    r"|\b(\d+(?:\.\d{1,2})?)\s?(?:dollars|usd|euros?|eur|pounds|gbp)\b",
    re.IGNORECASE,
)
_PERCENT = re.compile(r"\b(\d+(?:\.\d+)?)\s?(?:%|percent\b)", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)(?![\w.])")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_TRUE_WORDS = {"yes", "true", "y", "yeah", "yep", "correct"}
_FALSE_WORDS = {"no", "false", "n", "nope"}


def _sentences(text: str, hints: list[str]) -> list[str]:
    """The sentences a value may come from: all of them, or those naming a hint keyword."""
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip()] or [text]
    if not hints:
        return sentences
    lowered = [h.lower() for h in hints]
    return [s for s in sentences if any(h in s.lower() for h in lowered)]


def _amounts(text: str) -> list[float]:
    out = []
    for m in _MONEY.finditer(text):
        raw = m.group(1) or m.group(2)
        out.append(float(raw.replace(",", "")))
    return out


def _word_in(word: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


def extract(field: ProfileFieldDefinition, text: str, whole_message_for_strings: bool = False) -> Any:
    """The value of `field` stated in `text`, or None when the text does not state one."""
    kind = field.field_type
    hints = field.extraction_hints
    if field.pattern:
        m = re.search(field.pattern, text, re.IGNORECASE)
        if kind == "boolean":
            return m is not None  # "does the text contain this pattern" (e.g. an echoed card number)
        if kind in ("id", "string") or m is None:
            return m.group(0).upper() if m and kind == "id" else (m.group(0) if m else None)
    if kind == "money":
        # The largest amount the relevant sentences state: the conservative reading for caps.
        amounts = [a for s in _sentences(text, hints) for a in _amounts(s)]
        return max(amounts) if amounts else None
    if kind == "percentage":
        values = [float(m.group(1)) for s in _sentences(text, hints) for m in _PERCENT.finditer(s)]
        return max(values) if values else None
    if kind in ("integer", "number"):
        for s in _sentences(text, hints):
            m = _NUMBER.search(s)
            if m:
                value = float(m.group(1))
                return int(value) if kind == "integer" else value
        return None
    if kind == "enum":
        return next((v for v in field.allowed_values if _word_in(v, text)), None)
    if kind == "entity_list":
        return [v for v in field.allowed_values if _word_in(v, text)]
    if kind == "boolean":
        words = set(re.findall(r"[a-z]+", text.lower()))
        if hints:
            return True if any(h.lower() in text.lower() for h in hints) else None
        if words & _TRUE_WORDS:
            return True
        if words & _FALSE_WORDS:
            return False
        return None
    if kind == "date":
        m = _ISO_DATE.search(text)
        if m:
            try:
                return date(int(m.group(1)), int(m.group(2)), int(m.group(3))).isoformat()
            except ValueError:
                return None
        return None
    if kind == "id":
        return None  # ids need a pattern
    if whole_message_for_strings:
        stripped = text.strip()
        return stripped or None
    return None


def coerce(kind: str, value: Any) -> Any:
    """Bring a model- or tool-provided value to the field's type; None if it cannot be."""
    try:
        if value is None:
            return None
        if kind in ("money", "percentage", "number"):
            return float(str(value).replace("$", "").replace(",", "").replace("%", ""))
        if kind == "integer":
            return int(float(str(value)))
        if kind == "boolean":
            if isinstance(value, bool):
                return value
            return str(value).strip().lower() in _TRUE_WORDS
        if kind == "entity_list":
            return list(value) if isinstance(value, list | tuple) else [str(value)]
        return value if isinstance(value, str | int | float | bool) else str(value)
    except (TypeError, ValueError):
        return None
