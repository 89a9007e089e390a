"""Customer profile schema versioning: migrate on read, in one place.

An agent carries `profile_schema_version`; every stored profile carries the `schema_version` it was
written under. The sensor calls `migrate_profile` right after loading a profile. A profile written
under an OLDER version is brought to the agent's schema:

- fields the agent no longer declares (no `profile_field_definitions` entry) are dropped;
- declared `persist_to_profile` fields that the profile lacks and that have a `default` get it
  (defaults of session-only variables never enter the profile);
- a kept value is coerced to its field's current type (`coerce` of the extraction code); a value
  that cannot be coerced is DROPPED, never guessed: a number from text that is not a number, a
  boolean from anything but a bool or a yes/no word, an enum value outside `allowed_values`;
- `schema_version` becomes the agent's.

The returned `ProfileMigration` names the fields (never their values) for the turn's trace; the
persist stage saves the migrated profile. A profile from a NEWER schema than the agent's (an
agent rolled back) is left untouched and reported, so nothing is lost. Same version: no work.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from focal.models.agent import AgentConfig, ProfileFieldDefinition
from focal.models.session import CustomerProfile
from focal.sensing.extraction import coerce

_BOOLEAN_WORDS = {"true", "false", "yes", "no", "y", "n", "1", "0", "on", "off"}


class ProfileMigration(BaseModel):
    """What a migration did, by field name only (profile values are customer data)."""

    from_version: int
    to_version: int
    applied: bool = Field(description="False when the stored profile is newer than the agent's schema")
    dropped: list[str] = Field(default_factory=list, description="no longer declared by the agent")
    defaulted: list[str] = Field(default_factory=list, description="new declared fields set to their default")
    coerced: list[str] = Field(default_factory=list, description="kept, converted to the field's current type")
    invalid: list[str] = Field(default_factory=list, description="dropped: the value does not fit the current type")


def _convert(field: ProfileFieldDefinition, value: Any) -> tuple[bool, Any]:
    """(kept, value) for one stored value under the field's current definition."""
    kind = field.field_type
    if kind == "boolean" and not isinstance(value, bool) and str(value).strip().lower() not in _BOOLEAN_WORDS:
        return False, None
    converted = coerce(kind, value)
    if converted is None:
        return False, None
    if kind == "enum" and field.allowed_values and str(converted) not in field.allowed_values:
        return False, None
    return True, converted


def migrate_profile(profile: CustomerProfile, agent: AgentConfig) -> ProfileMigration | None:
    """Bring `profile` to the agent's schema in place; None when it is already current."""
    target = agent.profile_schema_version
    if profile.schema_version == target:
        return None
    report = ProfileMigration(from_version=profile.schema_version, to_version=target, applied=profile.schema_version < target)
    if not report.applied:
        return report
    fields: dict[str, Any] = {}
    for name, value in profile.fields.items():
        definition = agent.field(name)
        if definition is None:
            report.dropped.append(name)
            continue
        kept, converted = _convert(definition, value)
        if not kept:
            report.invalid.append(name)
            continue
        if converted != value or type(converted) is not type(value):
            report.coerced.append(name)
        fields[name] = converted
    for definition in agent.profile_field_definitions:
        if definition.persist_to_profile and definition.default is not None and definition.field_name not in fields:
            if definition.field_name not in report.invalid:
                fields[definition.field_name] = definition.default
                report.defaulted.append(definition.field_name)
    profile.fields = fields
    profile.schema_version = target
    return report
