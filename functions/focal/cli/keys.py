"""`focal keys create|list|revoke`: API keys with scopes, on the local SQLite file or the deployed table.

    focal keys create --tenant acme --scope chat [--scope approve] [--trusted-backend] [--label web]
    focal keys list [--tenant acme]
    focal keys revoke ID

Where: `--table NAME` (or FOCAL_API_KEYS_TABLE) is the deployed DynamoDB keys table; otherwise the
SQLite file `--db` (default .focal/focal.db). `create` prints the key once (only its hash is
stored); `list` shows each key's id (a prefix of its hash), never the key; `revoke ID` disables it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
from typing import Any

from focal.auth import SCOPES, KeyRecord

DEFAULT_DB = ".focal/focal.db"


def add_parser(sub: Any) -> None:
    k = sub.add_parser("keys", help="create, list and revoke API keys (scopes: chat, publish, approve, admin)",
                       description="create, list and revoke API keys (scopes: chat, publish, approve, admin)")
    ksub = k.add_subparsers(dest="keys_command", required=True)

    def where(s: argparse.ArgumentParser) -> argparse.ArgumentParser:
        s.add_argument("--db", help=f"local SQLite file (default {DEFAULT_DB})")
        s.add_argument("--table", help="the deployed DynamoDB keys table (default: FOCAL_API_KEYS_TABLE, if set)")
        s.add_argument("--json", action="store_true", help="print JSON instead of text")
        return s

    s = where(ksub.add_parser("create", help="create a key; it is printed once"))
    s.add_argument("--tenant", required=True, help="the tenant the key acts for")
    s.add_argument("--scope", action="append", required=True, choices=SCOPES,
                   help="what the key may do; repeat for several scopes")
    s.add_argument("--trusted-backend", action="store_true",
                   help="the key may assert the customer of a chat request (a tenant's own backend only)")
    s.add_argument("--label", default="", help="a note to recognise the key by in `focal keys list`")
    s.set_defaults(func=cmd_create)
    s = where(ksub.add_parser("list", help="list keys (id, tenant, scopes, label, created, disabled), never the key"))
    s.add_argument("--tenant", help="only this tenant's keys (default: all)")
    s.set_defaults(func=cmd_list)
    s = where(ksub.add_parser("revoke", help="disable a key by its id (from `focal keys list`)"))
    s.add_argument("key_id", metavar="ID", help="the key's id, a prefix of its hash (from `focal keys list`)")
    s.set_defaults(func=cmd_revoke)


def store_for(args: argparse.Namespace) -> Any:
    table = args.table or (None if args.db else os.environ.get("FOCAL_API_KEYS_TABLE"))
    if table:
        from focal.adapters.api_keys import DynamoApiKeyStore

        return DynamoApiKeyStore(table)
    from focal.adapters.sqlite_api_keys import SqliteApiKeyStore

    return SqliteApiKeyStore(args.db or DEFAULT_DB)


def _row(record: KeyRecord) -> dict[str, Any]:
    return {
        "id": record.key_id,
        "tenant": record.tenant_id,
        "scopes": sorted(record.scopes),
        "trusted_backend": record.trusted_backend,
        "label": record.label,
        "created": datetime.fromtimestamp(record.created_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "disabled": record.disabled,
    }


def cmd_create(args: argparse.Namespace) -> int:
    try:
        api_key, record = store_for(args).create(args.tenant, args.scope, label=args.label,
                                                 trusted_backend=args.trusted_backend)
    except ValueError as exc:
        print(f"focal keys create: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"key": api_key, **_row(record)}))
    else:
        print(f"key {api_key}")
        print(f"id {record.key_id}  tenant {record.tenant_id}  scopes {','.join(sorted(record.scopes))}"
              + ("  trusted backend" if record.trusted_backend else ""))
        print("Store the key now: it is not shown again (only its hash is kept).", file=sys.stderr)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    rows = [_row(r) for r in store_for(args).list(args.tenant)]
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{'ID':<13} {'TENANT':<16} {'SCOPES':<28} {'LABEL':<20} {'CREATED':<21} DISABLED")
    for r in rows:
        scopes = ",".join(r["scopes"]) + ("+trusted" if r["trusted_backend"] else "")
        print(f"{r['id']:<13} {r['tenant']:<16} {scopes:<28} {r['label']:<20} {r['created']:<21} {'yes' if r['disabled'] else 'no'}")
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    try:
        record = store_for(args).revoke(args.key_id)
    except (KeyError, ValueError) as exc:
        print(f"focal keys revoke: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 1
    print(json.dumps(_row(record)) if args.json else f"revoked {record.key_id} (tenant {record.tenant_id})")
    return 0
