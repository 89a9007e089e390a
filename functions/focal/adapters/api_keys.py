"""API keys → tenant, stored in DynamoDB by hash only.

Table layout: `pk = "KEY#<sha256 hex of the key>"`, attributes `tenant_id` (S), optional `disabled`
(BOOL), `created_at` (N), `label` (S). The key itself is never stored and never logged; callers get
it once from `issue`.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections.abc import Mapping
from typing import Any

import boto3

KEY_PREFIX = "KEY#"
_BEARER = re.compile(r"^\s*Bearer\s+(\S+)\s*$", re.IGNORECASE)
_MAX_KEY_LENGTH = 512


def key_hash(api_key: str) -> str:
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()


def partition_key(api_key: str) -> str:
    return KEY_PREFIX + key_hash(api_key)


def key_from_headers(headers: Mapping[str, Any] | None) -> str | None:
    """The API key from `x-api-key`, else from `Authorization: Bearer <key>` (header names any case)."""
    if not headers:
        return None
    lowered = {str(k).lower(): v for k, v in headers.items() if isinstance(v, str)}
    candidate = lowered.get("x-api-key", "").strip()
    if not candidate:
        match = _BEARER.match(lowered.get("authorization", ""))
        candidate = match.group(1) if match else ""
    if not candidate or len(candidate) > _MAX_KEY_LENGTH:
        return None
    return candidate


class DynamoApiKeyStore:
    def __init__(self, table_name: str, client: Any | None = None):
        self.table_name = table_name
        self._client = client or boto3.client("dynamodb")

    def tenant_for(self, api_key: str) -> str | None:
        """The tenant this key belongs to, or None if unknown or disabled."""
        item = self._client.get_item(
            TableName=self.table_name,
            Key={"pk": {"S": partition_key(api_key)}},
            ProjectionExpression="tenant_id, disabled",
        ).get("Item")
        if not item or item.get("disabled", {}).get("BOOL", False):
            return None
        tenant = item.get("tenant_id", {}).get("S")
        return tenant or None

    def issue(self, tenant_id: str, label: str = "") -> str:
        """Create a new key for `tenant_id`; returns the key (the only time it is visible)."""
        api_key = "fk_" + secrets.token_urlsafe(32)
        self._client.put_item(
            TableName=self.table_name,
            Item={
                "pk": {"S": partition_key(api_key)},
                "tenant_id": {"S": tenant_id},
                "label": {"S": label},
                "created_at": {"N": str(int(time.time()))},
            },
            ConditionExpression="attribute_not_exists(pk)",
        )
        return api_key

    def disable(self, api_key: str) -> None:
        self._client.update_item(
            TableName=self.table_name,
            Key={"pk": {"S": partition_key(api_key)}},
            UpdateExpression="SET disabled = :t",
            ExpressionAttributeValues={":t": {"BOOL": True}},
            ConditionExpression="attribute_exists(pk)",
        )
