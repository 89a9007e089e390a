"""DynamoDB stores: sessions, customer profiles, turn records and agent configuration.

Table layout (fixed by the CDK stack): partition key `pk` (S), the turns table also has sort
key `sk` (S); TTL attribute `expires_at` (N) on sessions and turns. Every key starts with
`TENANT#<tenant>#AGENT#<agent>#`; ids may not contain '#', so tenant "abc" can never address
the rows of tenant "abc-def" (or of "abc#AGENT#...").

Retry ownership (one owner per failure type): DynamoDB throttling and transient errors
(ProvisionedThroughputExceededException, ThrottlingException, 5xx) are retried HERE, by botocore's
`standard` retry mode (exponential backoff with full jitter, `DYNAMODB_MAX_ATTEMPTS` attempts in
all) on every client this module creates (`dynamodb_client`). The state machine retries only Lambda
service errors (infra/focal_infra/state_machine.py), so a throttled write is never retried by both
layers; when the attempts run out the error reaches the stage, whose Catch runs the fallback.
Conditional-check failures are not retried by botocore: they are the stores' own answers
(VersionConflict, DuplicateTurn).

Sessions, turn records and episodes are masked as they are written (`focal.pii`: card-like numbers
always, the agent's `pii: true` fields when the store is given an agent lookup); the objects the
engine holds keep their clear values. Expiry is the table's TTL on `expires_at` (DynamoDB deletes
within days); reads skip expired DynamoDB items TTL has not removed yet.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from typing import Any

from botocore.config import Config
from botocore.exceptions import ClientError

from focal.adapters import aws
from focal.config.loader import agent_from_text
from focal.errors import AgentNotFound, AgentTooLarge, DuplicateTurn, VersionConflict
from focal.models.agent import AgentConfig
from focal.models.approval import ApprovalRequest, ApprovalState
from focal.models.memory import Episode
from focal.models.session import CustomerProfile, Session
from focal.models.turn import TurnRecord
from focal.pii import AgentLookup, masked_json

TURN_PREFIX = "TURN#"
EPISODE_PREFIX = "EPISODE#"


def _check_id(kind: str, value: str) -> str:
    if not value or "#" in value:
        raise ValueError(f"invalid {kind} id {value!r}: must be non-empty and must not contain '#'")
    return value


def agent_key(tenant_id: str, agent_id: str) -> str:
    return f"TENANT#{_check_id('tenant', tenant_id)}#AGENT#{_check_id('agent', agent_id)}"


def session_key(tenant_id: str, agent_id: str, session_id: str) -> str:
    return f"{agent_key(tenant_id, agent_id)}#SESSION#{_check_id('session', session_id)}"


def profile_key(tenant_id: str, agent_id: str, customer_id: str) -> str:
    return f"{agent_key(tenant_id, agent_id)}#CUSTOMER#{_check_id('customer', customer_id)}"


def approval_key(tenant_id: str, approval_id: str) -> str:
    # Tenant-wide (the approval endpoint knows the tenant and the id, not the agent); the
    # `#APPROVAL#` segment cannot collide with `#AGENT#` keys of the same table.
    return f"TENANT#{_check_id('tenant', tenant_id)}#APPROVAL#{_check_id('approval', approval_id)}"


def episodes_key(tenant_id: str, agent_id: str, customer_id: str) -> str:
    return f"{profile_key(tenant_id, agent_id, customer_id)}#EPISODES"


def episode_sort_key(created_at: float, turn_id: str) -> str:
    # Zero-padded milliseconds sort chronologically; newest first with ScanIndexForward=False.
    return f"{EPISODE_PREFIX}{int(created_at * 1000):015d}#{turn_id}"


def turn_sort_key(turn_id: str) -> str:
    if not turn_id:
        raise ValueError("turn id must be non-empty")
    return f"{TURN_PREFIX}{turn_id}"


DYNAMODB_MAX_ATTEMPTS = 5  # the first call and up to 4 retries (botocore's standard mode, full jitter)
# `total_max_attempts` counts the first call; botocore reads a bare `max_attempts` as retries only.
DYNAMODB_CLIENT_CONFIG = Config(retries={"mode": "standard", "total_max_attempts": DYNAMODB_MAX_ATTEMPTS})


def dynamodb_client(**kwargs: Any) -> Any:
    """The one place DynamoDB clients are made: botocore standard retries with jitter own throttling."""
    return aws.client("dynamodb", config=DYNAMODB_CLIENT_CONFIG, **kwargs)


def _client(client: Any | None) -> Any:
    return client if client is not None else dynamodb_client()


def _conditional_failed(exc: ClientError) -> bool:
    return exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


def _expired(item: dict[str, Any], now: float) -> bool:
    expires = item.get("expires_at")
    return expires is not None and "N" in expires and float(expires["N"]) < now


def _num(value: int | float) -> dict[str, str]:
    return {"N": str(value)}


MAX_ITEM_BYTES = 400 * 1024  # DynamoDB's item limit: attribute names and values together


def item_bytes(item: dict[str, Any]) -> int:
    """A DynamoDB item's size as DynamoDB counts it (names and UTF-8 strings; a number at most 21 bytes, here its
    digits + 1, an upper bound); nested maps and lists are counted with their 3 bytes of overhead each."""
    def value(v: dict[str, Any]) -> int:
        (kind, x), = v.items()
        if kind == "S":
            return len(x.encode("utf-8"))
        if kind == "N":
            return min(21, len(x) + 1)
        if kind == "B":
            return len(x)
        if kind == "BOOL" or kind == "NULL":
            return 1
        if kind == "M":
            return 3 + sum(len(k.encode("utf-8")) + 1 + value(w) for k, w in x.items())
        if kind == "L":
            return 3 + sum(1 + value(w) for w in x)
        return sum(len(str(e).encode("utf-8")) for e in x)  # SS / NS / BS
    return sum(len(name.encode("utf-8")) + value(v) for name, v in item.items())


class DynamoSessionStore:
    def __init__(self, table_name: str, client: Any | None = None, agents: AgentLookup | None = None) -> None:
        self.table_name = table_name
        self._client = _client(client)
        self._agents = agents  # pii: the agent whose `pii: true` fields are masked; None: card numbers only

    def get(self, tenant_id: str, agent_id: str, session_id: str) -> Session | None:
        item = self._client.get_item(
            TableName=self.table_name,
            Key={"pk": {"S": session_key(tenant_id, agent_id, session_id)}},
            ConsistentRead=True,  # optimistic locking needs the latest version
        ).get("Item")
        if item is None or _expired(item, time.time()):
            return None
        session = Session.model_validate_json(item["doc"]["S"])
        session.version = int(item["version"]["N"])
        return session

    def save(self, session: Session, expected_version: int) -> Session:
        stored = session.model_copy(deep=True, update={"version": expected_version + 1})
        item: dict[str, Any] = {
            "pk": {"S": session_key(stored.tenant_id, stored.agent_id, stored.session_id)},
            "tenant_id": {"S": stored.tenant_id},
            "version": _num(stored.version),
            "doc": {"S": masked_json(stored.model_dump(mode="json"), self._agents)},
        }
        if stored.expires_at is not None:
            item["expires_at"] = _num(stored.expires_at)
        if expected_version == 0:
            # New, or replacing an expired DynamoDB item TTL has not deleted yet (get() reports it absent).
            condition = {
                "ConditionExpression": "attribute_not_exists(pk) OR expires_at < :now",
                "ExpressionAttributeValues": {":now": _num(int(time.time()))},
            }
        else:
            condition = {
                "ConditionExpression": "#v = :expected",
                "ExpressionAttributeNames": {"#v": "version"},
                "ExpressionAttributeValues": {":expected": _num(expected_version)},
            }
        try:
            self._client.put_item(TableName=self.table_name, Item=item, **condition)
        except ClientError as exc:
            if _conditional_failed(exc):
                raise VersionConflict(
                    f"session {stored.session_id} is not at version {expected_version}"
                ) from exc
            raise
        return stored


class DynamoProfileStore:
    def __init__(self, table_name: str, client: Any | None = None) -> None:
        self.table_name = table_name
        self._client = _client(client)

    def get(self, tenant_id: str, agent_id: str, customer_id: str) -> CustomerProfile | None:
        item = self._client.get_item(
            TableName=self.table_name,
            Key={"pk": {"S": profile_key(tenant_id, agent_id, customer_id)}},
            ConsistentRead=True,
        ).get("Item")
        return CustomerProfile.model_validate_json(item["doc"]["S"]) if item else None

    def save(self, profile: CustomerProfile) -> None:
        self._client.put_item(
            TableName=self.table_name,
            Item={
                "pk": {"S": profile_key(profile.tenant_id, profile.agent_id, profile.customer_id)},
                "tenant_id": {"S": profile.tenant_id},
                "version": _num(profile.version),
                "doc": {"S": profile.model_dump_json()},
            },
        )


REMASK_WINDOW_S = 300.0  # an episode is written within a turn's persist: seconds from the time its turn noted


def _rewrite_doc(client: Any, table: str, key: dict[str, Any], doc: str) -> None:
    """Replace a stored record's document (only while it is there: a TTL may have removed it meanwhile)."""
    try:
        client.update_item(TableName=table, Key=key, UpdateExpression="SET doc = :doc",
                           ConditionExpression="attribute_exists(pk)", ExpressionAttributeValues={":doc": {"S": doc}})
    except ClientError as exc:
        if not _conditional_failed(exc):
            raise


class DynamoTurnStore:
    def __init__(self, table_name: str, client: Any | None = None, agents: AgentLookup | None = None) -> None:
        self.table_name = table_name
        self._client = _client(client)
        self._agents = agents  # pii: the agent whose `pii: true` fields are masked; None: card numbers only

    def put(self, record: TurnRecord) -> None:
        item: dict[str, Any] = {
            "pk": {"S": session_key(record.tenant_id, record.agent_id, record.session_id)},
            "sk": {"S": turn_sort_key(record.turn_id)},
            "tenant_id": {"S": record.tenant_id},
            "turn_number": _num(record.turn_number),
            "doc": {"S": masked_json(record.model_dump(mode="json"), self._agents)},
        }
        if record.expires_at is not None:
            item["expires_at"] = _num(record.expires_at)
        try:
            self._client.put_item(
                TableName=self.table_name, Item=item, ConditionExpression="attribute_not_exists(pk)"
            )
        except ClientError as exc:
            if _conditional_failed(exc):
                raise DuplicateTurn(f"turn {record.turn_id} is already recorded") from exc
            raise

    def remask(self, tenant_id: str, agent_id: str, session_id: str, turn_id: str) -> None:
        key = {"pk": {"S": session_key(tenant_id, agent_id, session_id)}, "sk": {"S": turn_sort_key(turn_id)}}
        item = self._client.get_item(TableName=self.table_name, Key=key, ConsistentRead=True).get("Item")
        if item is not None:
            _rewrite_doc(self._client, self.table_name, key, masked_json(json.loads(item["doc"]["S"]), self._agents))

    def list_for_session(self, tenant_id: str, agent_id: str, session_id: str) -> list[TurnRecord]:
        pages = self._client.get_paginator("query").paginate(
            TableName=self.table_name,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={
                ":pk": {"S": session_key(tenant_id, agent_id, session_id)},
                ":prefix": {"S": TURN_PREFIX},
            },
        )
        now = time.time()
        records = [
            TurnRecord.model_validate_json(item["doc"]["S"])
            for page in pages
            for item in page.get("Items", [])
            if not _expired(item, now)
        ]
        records.sort(key=lambda r: (r.turn_number, r.created_at))
        return records


class DynamoEpisodeStore:
    """Episodes live in the turns table under the customer's key (`…#CUSTOMER#<id>#EPISODES`),
    expired by the same TTL attribute; reads filter expired DynamoDB items that TTL has not removed yet."""

    def __init__(self, table_name: str, client: Any | None = None, agents: AgentLookup | None = None) -> None:
        self.table_name = table_name
        self._client = _client(client)
        self._agents = agents  # pii: the agent whose `pii: true` fields are masked; None: card numbers only

    def put(self, episode: Episode) -> None:
        item: dict[str, Any] = {
            "pk": {"S": episodes_key(episode.tenant_id, episode.agent_id, episode.customer_id)},
            "sk": {"S": episode_sort_key(episode.created_at, episode.turn_id)},
            "tenant_id": {"S": episode.tenant_id},
            "doc": {"S": masked_json(episode.model_dump(mode="json"), self._agents)},
        }
        if episode.expires_at is not None:
            item["expires_at"] = _num(episode.expires_at)
        self._client.put_item(TableName=self.table_name, Item=item)

    def remask(self, tenant_id: str, agent_id: str, customer_id: str, turn_id: str, near: float) -> None:
        """The episode's sort key holds its time: looked for within `REMASK_WINDOW_S` of `near`."""
        pk = episodes_key(tenant_id, agent_id, customer_id)
        low, high = (f"{EPISODE_PREFIX}{int(t * 1000):015d}" for t in (near - REMASK_WINDOW_S, near + REMASK_WINDOW_S))
        response = self._client.query(
            TableName=self.table_name, ConsistentRead=True,
            KeyConditionExpression="pk = :pk AND sk BETWEEN :low AND :high",
            ExpressionAttributeValues={":pk": {"S": pk}, ":low": {"S": low}, ":high": {"S": high + "~"}},
        )
        for item in response.get("Items", []):
            if item["sk"]["S"].endswith(f"#{turn_id}"):
                _rewrite_doc(self._client, self.table_name, {"pk": item["pk"], "sk": item["sk"]},
                             masked_json(json.loads(item["doc"]["S"]), self._agents))

    def recent(self, tenant_id: str, agent_id: str, customer_id: str, limit: int) -> list[Episode]:
        response = self._client.query(
            TableName=self.table_name,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={
                ":pk": {"S": episodes_key(tenant_id, agent_id, customer_id)},
                ":prefix": {"S": EPISODE_PREFIX},
            },
            ScanIndexForward=False,
            Limit=limit,
        )
        now = time.time()
        return [Episode.model_validate_json(item["doc"]["S"]) for item in response.get("Items", []) if not _expired(item, now)]


APPROVAL_RETENTION_S = 30 * 24 * 3600  # the table's TTL removes a request this long after its deadline


class DynamoApprovalStore:
    """Approval requests in the sessions table (`pk = TENANT#<t>#APPROVAL#<id>`).

    `deadline` (N) is the answer deadline the conditions test; `expires_at` is the table's TTL
    attribute, set well after the deadline so the decided request stays readable for audit.
    A transition is one conditional UpdateItem: `state = :from` (and `deadline >= :now` when
    approving or denying), so of two racing approvals exactly one succeeds."""

    def __init__(self, table_name: str, client: Any | None = None) -> None:
        self.table_name = table_name
        self._client = _client(client)

    def create(self, request: ApprovalRequest) -> None:
        item = {
            "pk": {"S": approval_key(request.tenant_id, request.approval_id)},
            "tenant_id": {"S": request.tenant_id},
            "state": {"S": request.state},
            "deadline": _num(request.expires_at),
            "expires_at": _num(int(request.expires_at) + APPROVAL_RETENTION_S),
            "doc": {"S": request.model_dump_json()},
        }
        try:
            self._client.put_item(TableName=self.table_name, Item=item, ConditionExpression="attribute_not_exists(pk)")
        except ClientError as exc:
            if _conditional_failed(exc):
                raise ValueError(f"approval {request.approval_id} already exists") from exc
            raise

    def _read(self, tenant_id: str, approval_id: str) -> ApprovalRequest | None:
        item = self._client.get_item(
            TableName=self.table_name, Key={"pk": {"S": approval_key(tenant_id, approval_id)}}, ConsistentRead=True
        ).get("Item")
        return ApprovalRequest.model_validate_json(item["doc"]["S"]) if item else None

    def get(self, tenant_id: str, approval_id: str, now: float) -> ApprovalRequest | None:
        request = self._read(tenant_id, approval_id)
        if request is not None:
            request.state = request.effective_state(now)
        return request

    def transition(
        self, tenant_id: str, approval_id: str, from_state: ApprovalState, to_state: ApprovalState, now: float,
        outcome: dict[str, Any] | None = None,
    ) -> ApprovalRequest | None:
        request = self._read(tenant_id, approval_id)
        if request is None:
            return None
        request.state, request.decided_at = to_state, now
        if outcome is not None:
            request.outcome = outcome
        condition = "#s = :from" + (" AND deadline >= :now" if to_state in ("approved", "denied") else "")
        values: dict[str, Any] = {":from": {"S": from_state}, ":to": {"S": to_state}, ":doc": {"S": request.model_dump_json()}}
        if to_state in ("approved", "denied"):
            values[":now"] = _num(now)
        try:
            self._client.update_item(
                TableName=self.table_name,
                Key={"pk": {"S": approval_key(tenant_id, approval_id)}},
                UpdateExpression="SET #s = :to, doc = :doc",
                ConditionExpression=condition,
                ExpressionAttributeNames={"#s": "state"},
                ExpressionAttributeValues=values,
            )
        except ClientError as exc:
            if _conditional_failed(exc):
                return None
            raise
        return request

    def set_outcome(self, tenant_id: str, approval_id: str, outcome: dict[str, Any]) -> None:
        request = self._read(tenant_id, approval_id)
        if request is None:
            return
        request.outcome = outcome
        self._client.update_item(
            TableName=self.table_name,
            Key={"pk": {"S": approval_key(tenant_id, approval_id)}},
            UpdateExpression="SET doc = :doc",
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues={":doc": {"S": request.model_dump_json()}},
        )


class DynamoConfigStore:
    """Agent definitions as YAML text, keyed by tenant and agent.

    Parsed configs are cached per (tenant, agent, version, digest of the text): a lookup costs
    one small projected read, and a changed definition is picked up on the next call."""

    def __init__(self, table_name: str, client: Any | None = None, agents_root: str = "agents") -> None:
        self.table_name = table_name
        self.agents_root = agents_root
        self._client = _client(client)
        self._cache: dict[tuple[str, str, int, str], AgentConfig] = {}
        self._lock = threading.Lock()

    @staticmethod
    def agent_item(tenant_id: str, agent: AgentConfig, yaml_text: str) -> dict[str, Any]:
        return {
            "pk": {"S": agent_key(tenant_id, agent.id)},
            "tenant_id": {"S": tenant_id},
            "agent_id": {"S": agent.id},
            "version": _num(agent.version),
            "digest": {"S": _digest(yaml_text)},
            "yaml": {"S": yaml_text},
        }

    def check_fits(self, tenant_id: str, agent: AgentConfig, yaml_text: str) -> None:
        """Raise AgentTooLarge when the stored DynamoDB item would exceed 400 KB (checked before indexing)."""
        size = item_bytes(self.agent_item(tenant_id, agent, yaml_text))
        if size > MAX_ITEM_BYTES:
            raise AgentTooLarge(f"the stored agent would be {size} bytes; a DynamoDB item holds at most {MAX_ITEM_BYTES}")

    def put_agent(self, tenant_id: str, yaml_text: str) -> AgentConfig:
        """Validate and store an agent definition; raises AgentConfigInvalid listing every problem."""
        agent = agent_from_text(yaml_text, f"{self.table_name}:{tenant_id}")
        self.check_fits(tenant_id, agent, yaml_text)
        self._client.put_item(TableName=self.table_name, Item=self.agent_item(tenant_id, agent, yaml_text))
        return agent

    def get_agent(self, tenant_id: str, agent_id: str) -> AgentConfig:
        key = {"pk": {"S": agent_key(tenant_id, agent_id)}}
        head = self._client.get_item(
            TableName=self.table_name,
            Key=key,
            ProjectionExpression="#v, digest",
            ExpressionAttributeNames={"#v": "version"},
        ).get("Item")
        if head is None:
            raise AgentNotFound(f"agent {agent_id!r} not found for tenant {tenant_id!r}")
        cache_key = (tenant_id, agent_id, int(head["version"]["N"]), head.get("digest", {}).get("S", ""))
        with self._lock:
            cached = self._cache.get(cache_key)
        if cached is not None:
            return cached

        item = self._client.get_item(TableName=self.table_name, Key=key).get("Item")
        if item is None:
            raise AgentNotFound(f"agent {agent_id!r} not found for tenant {tenant_id!r}")
        text = item["yaml"]["S"]
        agent = agent_from_text(
            text, f"{self.table_name}:{tenant_id}/{agent_id}", os.path.join(self.agents_root, agent_id)
        )
        # Cache under what was actually parsed, in case the DynamoDB item changed between the two reads.
        parsed_key = (tenant_id, agent_id, int(item["version"]["N"]), item.get("digest", {}).get("S", ""))
        with self._lock:
            self._cache = {k: v for k, v in self._cache.items() if k[:2] != (tenant_id, agent_id)}
            self._cache[parsed_key] = agent
        return agent


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
