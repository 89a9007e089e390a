"""API Gateway REQUEST authorizer: API key (x-api-key or Authorization: Bearer) → tenant id.

Allows the called method with `context.tenant_id`, which the integration passes to the state
machine as `request.tenant_id` (never taken from the body). Unknown or disabled keys get 401.
The key is never logged. Runs on the bare runtime (boto3 only, no layers).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from focal.adapters.api_keys import DynamoApiKeyStore, key_from_headers

logger = logging.getLogger("focal.authorizer")
logger.setLevel(logging.INFO)

_store: DynamoApiKeyStore | None = None


def _get_store() -> DynamoApiKeyStore:
    global _store
    if _store is None:
        _store = DynamoApiKeyStore(os.environ["FOCAL_API_KEYS_TABLE"])
    return _store


def reset() -> None:
    """Forget the cached store (tests change the environment)."""
    global _store
    _store = None


def policy(principal: str, effect: str, resource: str, tenant_id: str) -> dict[str, Any]:
    return {
        "principalId": principal,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": effect, "Resource": resource}],
        },
        "context": {"tenant_id": tenant_id},
    }


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    api_key = key_from_headers(event.get("headers"))
    if api_key is None:
        logger.info("authorizer: no API key in the request")
        raise Exception("Unauthorized")  # API Gateway answers 401
    tenant_id = _get_store().tenant_for(api_key)
    if tenant_id is None:
        logger.info("authorizer: unknown or disabled API key")
        raise Exception("Unauthorized")
    logger.info("authorizer: allowed tenant %s", tenant_id)
    return policy(principal=f"tenant:{tenant_id}", effect="Allow", resource=event["methodArn"], tenant_id=tenant_id)
