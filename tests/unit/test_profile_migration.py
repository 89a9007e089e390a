"""Profile schema versioning (seed 000 D): a profile from an older schema is migrated on read."""

from __future__ import annotations

from focal.dialogue.profile_migration import migrate_profile
from focal.models.agent import AgentConfig
from focal.models.session import CustomerProfile


def _agent(version: int = 2) -> AgentConfig:
    return AgentConfig.model_validate({
        "id": "a", "name": "A", "profile_schema_version": version,
        "profile_field_definitions": [
            {"field_name": "tier", "field_type": "enum", "allowed_values": ["gold", "silver"], "persist_to_profile": True},
            {"field_name": "orders", "field_type": "integer", "persist_to_profile": True},
            {"field_name": "vip", "field_type": "boolean", "persist_to_profile": True},
            {"field_name": "language", "field_type": "string", "persist_to_profile": True, "default": "en"},
            {"field_name": "refund_amount", "field_type": "money", "default": 0},  # session-only: never defaulted in
        ],
    })


def _profile(version: int, fields: dict) -> CustomerProfile:
    return CustomerProfile(tenant_id="t", agent_id="a", customer_id="c", schema_version=version, fields=fields)


def test_older_profile_drops_undeclared_defaults_new_coerces_and_bumps():
    profile = _profile(1, {"tier": "gold", "orders": "3", "vip": "yes", "nickname": "Bob"})
    report = migrate_profile(profile, _agent())
    assert profile.schema_version == 2
    assert profile.fields == {"tier": "gold", "orders": 3, "vip": True, "language": "en"}
    assert report is not None and report.applied
    assert report.dropped == ["nickname"] and report.defaulted == ["language"]
    assert sorted(report.coerced) == ["orders", "vip"] and report.invalid == []


def test_values_that_do_not_fit_the_new_type_are_dropped_not_guessed():
    profile = _profile(1, {"tier": "platinum", "orders": "many", "vip": "perhaps", "language": "fr"})
    report = migrate_profile(profile, _agent())
    assert profile.fields == {"language": "fr"}
    assert sorted(report.invalid) == ["orders", "tier", "vip"] and report.defaulted == []


def test_current_profile_is_untouched_and_a_newer_one_is_reported_not_changed():
    current = _profile(2, {"nickname": "kept"})
    assert migrate_profile(current, _agent()) is None and current.fields == {"nickname": "kept"}
    newer = _profile(3, {"nickname": "kept"})
    report = migrate_profile(newer, _agent())
    assert report is not None and not report.applied
    assert newer.schema_version == 3 and newer.fields == {"nickname": "kept"}


def test_report_names_fields_never_values():
    profile = _profile(1, {"nickname": "Secret Name", "orders": "7"})
    dumped = str(migrate_profile(profile, _agent()).model_dump())
    assert "Secret Name" not in dumped and "7" not in dumped
