"""What the turn already knows that a draft's amounts are read against (focal.enforcement.draft_reading):

- `known_values`: the turn's amounts of the field's kind (a booking total a tool returned), never the fields
  being read nor a field's default;
- `known_names`: the turn's names of a purchase — the value of an `id` field ("B-123"), or of a text field whose
  name has one of the money field's `amount_words.purchases` ("booking_room" → "Oak suite") — that a draft can
  promise the whole of without any amount word: "I'll reimburse B-123", "the Oak suite will be credited".
"""

from __future__ import annotations

import re
from typing import Any

from focal.enforcement.terms import term_pattern
from focal.models.agent import AgentConfig, ProfileFieldDefinition
from focal.text.draft_view import as_checked


def known_values(agent: AgentConfig, kind: str, known: dict[str, Any], skip: set[str]) -> list[float]:
    """The turn's known values of the same kind (a booking total from a tool), not the fields being read."""
    kinds = {"money": ("money", "number"), "percentage": ("percentage",)}.get(kind, ("number", "integer", "money"))
    out = []
    for name, value in known.items():
        f = agent.field(name)
        if name in skip or f is None or f.field_type not in kinds or isinstance(value, bool) or value == f.default:
            continue  # a field's default is no known amount ("your whole bill" is not the $0 a bill defaults to)
        try:
            out.append(float(str(value).replace("$", "").replace(",", "").replace("%", "")))
        except ValueError:
            continue
    return out


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if w}


def known_names(agent: AgentConfig, field: ProfileFieldDefinition, known: dict[str, Any], skip: set[str]) -> tuple[str, ...]:
    """The turn's known names of a purchase (folded), for the money `field`: ids, and texts of fields named after one of
    its purchase words. Short (3 to 60 characters, at most 6 words); never a field read from the draft, nor a default."""
    purchases = {w for p in field.amount_words.purchases for w in _words(as_checked(p))}
    out = []
    for name, value in known.items():
        f = agent.field(name)
        if (f is None or name in skip or not isinstance(value, str) or "response" in f.sources or value == f.default
                or f.field_type not in ("id", "string")):
            continue
        if f.field_type == "string" and not (purchases & _words(name.replace("_", " "))):
            continue  # a free text (a reason, an address) names no purchase
        shown = " ".join(as_checked(value).split())
        if 3 <= len(shown) <= 60 and len(shown.split()) <= 6 and re.search(r"[^\W_]", shown):
            out.append(shown)
    return tuple(sorted(set(out)))


def names_in(names: tuple[str, ...], text: str) -> list[str]:
    """The known names `text` shows (folded text; however their parts are joined or split)."""
    return [n for n in names if term_pattern(n).search(text)]
