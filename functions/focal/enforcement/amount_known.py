"""What the turn already knows that a draft's amounts are read against (focal.enforcement.draft_reading):

- `known_values`: the turn's amounts of the field's kind (a booking total a tool returned), never the fields
  being read nor a field's default;
- `known_names`: the turn's names of a purchase — the value of an `id` field ("B-123"), or of a text field whose
  name has one of the money field's `amount_words.purchases` ("booking_room" → "Oak suite") — that a draft can
  promise the whole of without any amount word: "I'll reimburse B-123", "the Oak suite will be credited";
- `other_fields_hints`: the hints of the agent's other answer fields of the kind ("voucher" beside a credit field),
  whose clauses hold those fields' amounts, not this one's;
- `amount_roles`: the names of the agent's own amounts that hold a built-in cue word (a `deposit_amount` from a tool:
  "deposit"), so that "the deposit is €800" names that amount and moves nothing to the customer.
"""

from __future__ import annotations

import re
from typing import Any

from focal.enforcement.amount_cues import lexicon
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


_GENERIC = frozenset("amount amounts total totals sum value figure".split())


def _role_name(words: list[str]) -> str:
    """The words of a name without the generic amount words at its ends ("deposit_amount" → "deposit")."""
    while words and words[-1] in _GENERIC:
        words = words[:-1]
    while words and words[0] in _GENERIC:
        words = words[1:]
    return " ".join(words)


def amount_roles(agent: AgentConfig, field: ProfileFieldDefinition) -> tuple[str, ...]:
    """The names (field name and display name) of the agent's other amounts of the field's kind that the business
    knows — from tools, the profile or the customer, never from an answer — and that hold one of the built-in cue
    words: named as nouns in an answer, they are those amounts' roles, not money moving to the customer."""
    built_in = lexicon(ProfileFieldDefinition(field_name="_", field_type=field.field_type)).money_cues
    out = set()
    for f in agent.profile_field_definitions:
        if f.field_name == field.field_name or f.field_type != field.field_type or "response" in f.sources:
            continue
        for name in (f.field_name.replace("_", " "), f.display_name):
            role = _role_name(re.findall(r"[^\W\d_]+", as_checked(name).lower()))
            if role and built_in.search(role):
                out.add(role)
    return tuple(sorted(out))


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


def other_fields_hints(agent: AgentConfig, field: ProfileFieldDefinition) -> tuple[str, ...]:
    """The `extraction_hints` of the agent's other fields of the field's kind read from answers, without the field's
    own: a credit field and a voucher field each name what their amounts are."""
    own = {h.casefold() for h in field.extraction_hints}
    out = {h for f in agent.profile_field_definitions
           if f.field_name != field.field_name and f.field_type == field.field_type and "response" in f.sources
           for h in f.extraction_hints if h.casefold() not in own}
    return tuple(sorted(out))
