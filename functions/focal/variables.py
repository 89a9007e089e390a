"""What a turn knows, as plain data: field defaults < profile < session variables < slots."""

from __future__ import annotations

import re
from typing import Any

from focal.models.agent import AgentConfig
from focal.models.session import CustomerProfile, Session
from focal.text.invisible import invisible
from focal.text.shown_values import as_date, showing, shown_date, shown_decimal, shown_yes_no

PENDING = "_resolving"  # session variable of a question asked outside a flow: {"variable": name, "rules": [rule ids]}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


STEP_ATTEMPTS = "step_attempts"  # how many times the current step's action ran in this run of the flow


def known_variables(agent: AgentConfig, session: Session | None, profile: CustomerProfile | None) -> dict[str, Any]:
    out: dict[str, Any] = {f.field_name: f.default for f in agent.profile_field_definitions if f.default is not None}
    if profile is not None:
        out.update({k: v for k, v in profile.fields.items() if v is not None})
    if session is not None:
        out.update({k: v for k, v in session.variables.items() if v is not None})
        out.update({k: v for k, v in session.slots.items() if v is not None})
        if session.active_step_id is not None:
            out[STEP_ATTEMPTS] = session.step_attempts.get(session.active_step_id, 0)
    return out


def spoken(agent: AgentConfig, variables: dict[str, Any]) -> dict[str, Any]:
    """The variables as the customer is told them: each enum value by its label (ProfileFieldDefinition.spoken).
    For the texts said to the customer only: expressions, guards and tools read the values themselves."""
    out = dict(variables)
    for f in agent.profile_field_definitions:
        if f.field_type == "enum" and f.field_name in out:
            out[f.field_name] = f.spoken(out[f.field_name])
    return out


def said_variables(agent: AgentConfig, session: Session | None, profile: CustomerProfile | None) -> dict[str, Any]:
    """`known_variables` as the customer is told them (`spoken`)."""
    return spoken(agent, known_variables(agent, session, profile))


def as_said(value: Any) -> str:
    """A value as the customer reads it, numbers and dates in the language texts are filled in (focal.text.shown_values;
    English: "12,345.50", "2027-03-03"); a yes/no value in its words ("oui", "nein"); a text without the characters a
    reader cannot see (focal.text.invisible): a right-to-left override typed into a value would show the rest of the
    answer's line reversed, a promise the agent never wrote."""
    lang = showing()
    if isinstance(value, bool):
        return shown_yes_no(value, lang)
    if isinstance(value, float):
        return f"{value:,.2f}" if lang is None else shown_decimal(value, lang)
    if lang is not None and (day := as_date(value)) is not None:
        return shown_date(day, lang)
    return "".join(c for c in str(value) if not invisible(c))


def render(template: str, variables: dict[str, Any]) -> str:
    """Fill `{name}` placeholders; an unknown name reads 'unknown' rather than leaking braces (the offline
    composer never gets there: it checks `unknown` first)."""
    return _PLACEHOLDER.sub(lambda m: as_said(variables[m.group(1)]) if variables.get(m.group(1)) is not None else "unknown", template)


def unknown(template: str, variables: dict[str, Any]) -> list[str]:
    """The placeholders of `template` with no value: a text naming them must not be said (it would read
    "at unknown came to $unknown"); the composer picks another text and the trace says which names were missing."""
    return sorted(n for n in placeholders(template) if variables.get(n) in (None, ""))


def placeholders(template: str) -> set[str]:
    return set(_PLACEHOLDER.findall(template))


def literal_parts(template: str) -> list[str]:
    """The text of `template` between its placeholders: what every rendering of it says, whatever the values."""
    return [part for part in _PLACEHOLDER.split(template)[::2] if part]
