"""Turn claims (`focal.ports.TurnClaimStore`) on the stack's IdempotencyTable: conditional writes only.

Record: `pk` = `TENANT#<tenant>#TURN#<key>`, `status`, `owner`, `payload_hash`, `lease_until`, `result`
(the TurnResult JSON once completed) and the TTL attribute `expires_at` (epoch seconds; DynamoDB
deletes within days, so the conditions compare it themselves).

- `acquire`: PutItem if the key is absent, expired, or in progress for the same payload with a lease
  that has ended (`TurnClaim.yields_to`, as a condition expression); a refused put returns the record
  that holds the key (`ReturnValuesOnConditionCheckFailure`), so the answer is the record the
  condition was checked against, not a later read.
- `extend` / `complete`: UpdateItem conditional on `owner` and `status` (compare-and-set on the owner
  token): an execution whose claim was taken over can neither renew nor complete it.

Throttling is retried by the client (`dynamodb_store.dynamodb_client`); a failed condition is the
store's answer, never retried.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from focal.adapters.dynamodb_store import _check_id, _client, _conditional_failed, _num
from focal.ports import TurnClaim

NAMES = {"#status": "status", "#owner": "owner", "#payload": "payload_hash", "#lease": "lease_until",
         "#expires": "expires_at", "#result": "result"}
FREE = ("attribute_not_exists(pk) OR #expires <= :now "
        "OR (#status = :in_progress AND #lease <= :now AND #payload = :payload)")
HELD = "#owner = :owner AND #status = :in_progress"


def claim_key(tenant_id: str, key: str) -> str:
    return f"TENANT#{_check_id('tenant', tenant_id)}#TURN#{_check_id('claim', key)}"


def _claim(item: dict[str, Any] | None) -> TurnClaim | None:
    if not item:
        return None
    pk = item["pk"]["S"]
    tenant_id, _, key = pk.removeprefix("TENANT#").partition("#TURN#")
    return TurnClaim(tenant_id=tenant_id, key=key, owner=item["owner"]["S"], status=item["status"]["S"],
                     payload_hash=item["payload_hash"]["S"], lease_until=float(item["lease_until"]["N"]),
                     expires_at=float(item["expires_at"]["N"]),
                     result=item["result"]["S"] if "result" in item else None)


class DynamoTurnClaims:
    def __init__(self, table_name: str, client: Any | None = None) -> None:
        self.table_name = table_name
        self._client = _client(client)

    def get(self, tenant_id: str, key: str) -> TurnClaim | None:
        out = self._client.get_item(TableName=self.table_name, Key={"pk": {"S": claim_key(tenant_id, key)}},
                                    ConsistentRead=True)
        return _claim(out.get("Item"))

    def acquire(self, claim: TurnClaim, now: float) -> tuple[bool, TurnClaim | None]:
        item = {
            "pk": {"S": claim_key(claim.tenant_id, claim.key)},
            "owner": {"S": claim.owner},
            "status": {"S": "in_progress"},
            "payload_hash": {"S": claim.payload_hash},
            "lease_until": _num(claim.lease_until),
            "expires_at": _num(int(claim.expires_at)),
        }
        try:
            out = self._client.put_item(
                TableName=self.table_name, Item=item, ConditionExpression=FREE,
                ExpressionAttributeNames={k: NAMES[k] for k in ("#status", "#payload", "#lease", "#expires")},
                ExpressionAttributeValues={":now": _num(now), ":in_progress": {"S": "in_progress"},
                                           ":payload": {"S": claim.payload_hash}},
                ReturnValues="ALL_OLD", ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as exc:
            if _conditional_failed(exc):
                return False, _claim(exc.response.get("Item"))
            raise
        return True, _claim(out.get("Attributes"))

    def _update(self, tenant_id: str, key: str, owner: str, update: str, values: dict[str, Any],
                names: tuple[str, ...]) -> bool:
        try:
            self._client.update_item(
                TableName=self.table_name, Key={"pk": {"S": claim_key(tenant_id, key)}},
                UpdateExpression=update, ConditionExpression=HELD,
                ExpressionAttributeNames={k: NAMES[k] for k in ("#owner", "#status", *names)},
                ExpressionAttributeValues={":owner": {"S": owner}, ":in_progress": {"S": "in_progress"}, **values},
            )
        except ClientError as exc:
            if _conditional_failed(exc):
                return False
            raise
        return True

    def extend(self, tenant_id: str, key: str, owner: str, lease_until: float) -> bool:
        return self._update(tenant_id, key, owner, "SET #lease = :lease", {":lease": _num(lease_until)}, ("#lease",))

    def complete(self, tenant_id: str, key: str, owner: str, result: str, expires_at: float) -> bool:
        return self._update(
            tenant_id, key, owner, "SET #status = :completed, #result = :result, #expires = :expires",
            {":completed": {"S": "completed"}, ":result": {"S": result}, ":expires": _num(int(expires_at))},
            ("#result", "#expires"),
        )
