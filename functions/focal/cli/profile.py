"""`focal profile set|show`: the facts a business's own systems hold about a customer, on the local SQLite file.

    focal profile set examples/cards/agent.yaml --customer c-1 is_verified=true
    focal profile show examples/cards/agent.yaml --customer c-1

Privileged facts (`is_verified`, `is_premium`) never come from a message; in production the profile
store is filled by the business's systems. Locally this command plays that part, so a developer can
try a guarded flow in `focal chat --customer c-1` or `focal serve`. Each value is brought to its
field's type; an undeclared field or a value of the wrong type is refused, naming the field. An enum or
entity_list value must name one of the field's allowed_values (in any case, or by one of its
value_synonyms): the allowed value itself is stored, as the engine stores a value read from a message.
A boolean must be written as one (true/false, yes/no): any other text is refused, not stored as false.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

DEFAULT_DB = ".focal/focal.db"


def add_parser(sub: Any) -> None:
    help_ = "set or show a customer's profile facts in the local SQLite file (what the business's systems know)"
    p = sub.add_parser("profile", help=help_, description=help_)
    psub = p.add_subparsers(dest="profile_command", required=True)
    for name, what in (("set", "set facts: FIELD=VALUE ..."), ("show", "print the stored facts")):
        s = psub.add_parser(name, help=what, description=what)
        s.add_argument("agent", help="the agent YAML file (or its folder)")
        s.add_argument("--customer", required=True, help="the customer id (as in `focal chat --customer`)")
        s.add_argument("--tenant", default=os.environ.get("FOCAL_TENANT", "local"), help="tenant id (FOCAL_TENANT when set)")
        s.add_argument("--db", default=DEFAULT_DB, help=f"the local SQLite file (default {DEFAULT_DB})")
        if name == "set":
            s.add_argument("facts", nargs="+", metavar="FIELD=VALUE", help="e.g. is_verified=true tier=gold")
        s.set_defaults(func=cmd_profile)


_TRUE = frozenset({"true", "yes", "y", "on", "1"})
_FALSE = frozenset({"false", "no", "n", "off", "0"})


def _allowed(field: Any, raw: str) -> str:
    """The allowed value `raw` names (itself in any case, or a synonym); ValueError naming the allowed values."""
    from focal.config.hints import did_you_mean
    from focal.sensing.extraction import allowed_value

    value = allowed_value(field, raw)
    if value is None:
        listed = ", ".join(field.allowed_values)
        synonyms = " or one of its value_synonyms" if field.value_synonyms else ""
        raise ValueError(f"{field.field_name}: {raw!r} is not one of the allowed values of this {field.field_type} field "
                         f"({listed}), so nothing is stored; give one of them (in any case){synonyms}"
                         f"{did_you_mean(raw, field.allowed_values)}")
    return value


def _value(field: Any, raw: str) -> Any:
    from focal.sensing.extraction import coerce

    if field.field_type == "enum":
        return _allowed(field, raw)
    if field.field_type == "entity_list":
        return list(dict.fromkeys(_allowed(field, part.strip()) for part in raw.split(",") if part.strip()))
    if field.field_type == "boolean":
        if raw.lower() not in _TRUE | _FALSE:
            raise ValueError(f"{field.field_name}: {raw!r} is no boolean value; give true or false")
        return raw.lower() in _TRUE
    value = coerce(field.field_type, raw)
    if value is None:
        raise ValueError(f"{field.field_name}: {raw!r} is no {field.field_type} value")
    return value


def parse_facts(agent: Any, pairs: list[str]) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        field = agent.field(name.strip())
        if not sep or field is None:
            from focal.config.hints import did_you_mean

            names = [f.field_name for f in agent.profile_field_definitions]
            hint = did_you_mean(name.strip(), names) if sep else ""
            raise ValueError(f"{pair!r}: give FIELD=VALUE with a declared field{hint} ({', '.join(names)})")
        facts[field.field_name] = _value(field, raw.strip())
    return facts


def cmd_profile(args: argparse.Namespace) -> int:
    from focal.adapters.sqlite_store import open_sqlite_stores
    from focal.config.loader import load_agent
    from focal.models.session import CustomerProfile

    agent = load_agent(args.agent)
    stores = open_sqlite_stores(args.db)
    profile = stores.profiles.get(args.tenant, agent.id, args.customer) or CustomerProfile(
        tenant_id=args.tenant, agent_id=agent.id, customer_id=args.customer, schema_version=agent.profile_schema_version)
    if args.profile_command == "set":
        try:
            profile.fields.update(parse_facts(agent, args.facts))
        except ValueError as exc:
            print(f"focal profile: {exc}")
            return 2
        stores.profiles.save(profile)
    print(json.dumps({"customer_id": args.customer, "agent_id": agent.id, "fields": profile.fields}, default=str))
    return 0
