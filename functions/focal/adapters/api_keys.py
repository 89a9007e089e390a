"""API keys → principal (tenant, scopes, trusted backend), stored in DynamoDB by hash only.

Table layout: `pk = "KEY#<sha256 hex of the key>"`, attributes `tenant_id` (S), `scopes` (SS: chat,
publish, approve, admin), `trusted_backend` (BOOL: may assert the customer of a chat request),
optional `disabled` (BOOL), `created_at` (N), `label` (S). A record without `scopes` (written before
scopes existed) can do nothing: fail closed. The key itself is never stored and never logged;
callers get it once from `create` / `issue`. A key's id is a short prefix of its hash (`key_id`).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections.abc import Mapping
from typing import Any

from focal.adapters import aws
from focal.auth import KeyRecord, KeyRequest, Principal

KEY_PREFIX = "KEY#"
KEY_ID_LENGTH = 12
_KEY_ID = re.compile(r"^[0-9a-f]{6,64}$")
_BEARER = re.compile(r"^\s*Bearer\s+(\S+)\s*$", re.IGNORECASE)
_MAX_KEY_LENGTH = 512


def key_hash(api_key: str) -> str:
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()


def partition_key(api_key: str) -> str:
    return KEY_PREFIX + key_hash(api_key)


def key_id(hashed: str) -> str:
    return hashed[:KEY_ID_LENGTH]


def new_key() -> str:
    return "fk_" + secrets.token_urlsafe(32)


def check_key_id(value: str) -> str:
    """A key id as given to `revoke` (a hex prefix of the key's hash, at least 6 characters)."""
    normalised = (value or "").strip().lower()
    if not _KEY_ID.fullmatch(normalised):
        raise ValueError("a key id is the hex prefix `focal keys list` shows")
    return normalised


def key_from_headers(headers: Mapping[str, Any] | None) -> str | None:
    """The API key from `x-api-key`, else from `Authorization: Bearer <key>` (header names any case)."""
    if not headers:
        return None
    lowered = {str(k).lower(): v for k, v in headers.items() if isinstance(v, str)}
    candidate = lowered.get("x-api-key", "").strip()
    if not candidate:
        match = _BEARER.fullmatch(lowered.get("authorization", ""))
        candidate = match.group(1) if match else ""
    if not candidate or len(candidate) > _MAX_KEY_LENGTH:
        return None
    return candidate


def keys_from_headers(headers: Mapping[str, Any] | None) -> list[str]:
    """Every API key the request carries: `x-api-key` first, then `Authorization: Bearer <key>` (header names
    any case), the same key once. Empty when there is none or one is longer than a key can be (401)."""
    if not headers:
        return []
    lowered = {str(k).lower(): v for k, v in headers.items() if isinstance(v, str)}
    match = _BEARER.fullmatch(lowered.get("authorization", ""))
    found = [c for c in (lowered.get("x-api-key", "").strip(), match.group(1) if match else "") if c]
    if any(len(c) > _MAX_KEY_LENGTH for c in found):
        return []
    return list(dict.fromkeys(found))


class DynamoApiKeyStore:
    def __init__(self, table_name: str, client: Any | None = None):
        self.table_name = table_name
        self._client = client or aws.client("dynamodb")

    @staticmethod
    def _record(item: Mapping[str, Any]) -> KeyRecord:
        return KeyRecord(
            key_id=key_id(item["pk"]["S"][len(KEY_PREFIX):]),
            tenant_id=item.get("tenant_id", {}).get("S", ""),
            scopes=frozenset(item.get("scopes", {}).get("SS", [])),
            label=item.get("label", {}).get("S", ""),
            created_at=int(item.get("created_at", {}).get("N", "0")),
            disabled=bool(item.get("disabled", {}).get("BOOL", False)),
            trusted_backend=bool(item.get("trusted_backend", {}).get("BOOL", False)),
        )

    def record_for(self, api_key: str) -> KeyRecord | None:
        item = self._client.get_item(TableName=self.table_name, Key={"pk": {"S": partition_key(api_key)}}).get("Item")
        return self._record(item) if item else None

    def principal_for(self, api_key: str) -> Principal | None:
        """The principal of an active key (`focal.auth.KeyLookup`), or None (unknown, disabled)."""
        record = self.record_for(api_key)
        return record.principal() if record else None

    def tenant_for(self, api_key: str) -> str | None:
        """The tenant this key belongs to, or None if unknown or disabled."""
        record = self.record_for(api_key)
        return record.tenant_id if record and not record.disabled and record.tenant_id else None

    def create(self, tenant_id: str, scopes: Any, label: str = "", trusted_backend: bool = False) -> tuple[str, KeyRecord]:
        """A new key and its record; the key is returned here only (the table keeps its hash)."""
        wanted = KeyRequest.checked(tenant_id, scopes, label, trusted_backend)
        api_key = new_key()
        item = {
            "pk": {"S": partition_key(api_key)},
            "tenant_id": {"S": wanted.tenant_id},
            "scopes": {"SS": sorted(wanted.scopes)},
            "trusted_backend": {"BOOL": wanted.trusted_backend},
            "label": {"S": wanted.label},
            "created_at": {"N": str(int(time.time()))},
        }
        self._client.put_item(TableName=self.table_name, Item=item, ConditionExpression="attribute_not_exists(pk)")
        return api_key, self._record(item)

    def issue(self, tenant_id: str, label: str = "", scopes: Any = ("admin",), trusted_backend: bool = False) -> str:
        """Create a new key for `tenant_id` (an admin key unless `scopes` says otherwise); returns the key."""
        return self.create(tenant_id, scopes, label=label, trusted_backend=trusted_backend)[0]

    def _scan(self, prefix: str) -> list[dict[str, Any]]:
        """The DynamoDB items whose pk starts with `prefix` (an operator's listing: a paginated Scan)."""
        items: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {"TableName": self.table_name, "FilterExpression": "begins_with(pk, :p)",
                                  "ExpressionAttributeValues": {":p": {"S": prefix}}}
        while True:
            page = self._client.scan(**kwargs)
            items += page.get("Items", [])
            if "LastEvaluatedKey" not in page:
                return items
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def list(self, tenant_id: str | None = None) -> list[KeyRecord]:
        """Every key's record, optionally of one tenant, oldest first."""
        records = [self._record(i) for i in self._scan(KEY_PREFIX)]
        return sorted((r for r in records if tenant_id is None or r.tenant_id == tenant_id), key=lambda r: (r.created_at, r.key_id))

    def _by_id(self, key_id_prefix: str) -> str:
        matches = [i["pk"]["S"] for i in self._scan(KEY_PREFIX + check_key_id(key_id_prefix))]
        if len(matches) != 1:
            raise KeyError("no key with that id" if not matches else "that id matches several keys: give more of it")
        return matches[0]

    def revoke(self, key_id_prefix: str) -> KeyRecord:
        """Disable the key whose id starts with `key_id_prefix` (KeyError: none or several)."""
        pk = self._by_id(key_id_prefix)
        item = self._client.update_item(
            TableName=self.table_name, Key={"pk": {"S": pk}}, UpdateExpression="SET disabled = :t",
            ExpressionAttributeValues={":t": {"BOOL": True}}, ConditionExpression="attribute_exists(pk)",
            ReturnValues="ALL_NEW",
        )["Attributes"]
        return self._record(item)

    def disable(self, api_key: str) -> None:
        self._client.update_item(
            TableName=self.table_name,
            Key={"pk": {"S": partition_key(api_key)}},
            UpdateExpression="SET disabled = :t",
            ExpressionAttributeValues={":t": {"BOOL": True}},
            ConditionExpression="attribute_exists(pk)",
        )
