"""API Gateway REQUEST authorizer: API key (x-api-key or Authorization: Bearer) → principal, per route.

- No key, an unknown or a disabled key: `Unauthorized` (401). Both headers with keys that are not the
  same principal (another tenant, other scopes, an unknown key beside a known one): 401 too, never the
  first header's tenant. So is a credential header (API key, customer token) given more than once, in
  `headers` or `multiValueHeaders`, or with comma-joined values (focal.credential_headers).
- The called route (method and path from `methodArn`, checked against the event's `httpMethod` and
  `resource`) is unknown, or needs a scope the key lacks (`focal.auth.ROUTE_SCOPES`; `admin` holds
  every scope): a Deny policy (403).
- A request with an `X-Focal-Customer-Token` header: the token must verify (HS256, the tenant's
  secret `focal/<tenant>/customer_token_secret`, audience = tenant, not expired), else 401; its `sub`
  becomes the customer.
- Otherwise Allow on exactly this method ARN, with the context `tenant_id`, `scopes` (space
  separated), `customer_id` (the token's customer, else "anonymous") and `trusted_backend`
  ("true" when the key may assert the body's `customer_id`: the turn mapping template uses the body's
  value only then). API Gateway does not cache the result (TTL 0 in the stack): the customer token
  and the route both change the answer.

Nothing identifying is logged: no key, no token, no secret, no customer id. Runs on the bare
runtime (its boto3) with the auth layer only (PyJWT, layers/auth).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from focal.adapters.api_keys import DynamoApiKeyStore, keys_from_headers
from focal.adapters.secrets import SecretsManagerSource
from focal.auth import (
    CUSTOMER_TOKEN_SECRET,
    ConflictingCredentials,
    CustomerTokenRefused,
    Principal,
    authenticate_keys,
    required_scope,
    route_of,
    with_customer_token,
)
from focal.credential_headers import event_credentials

logger = logging.getLogger("focal.authorizer")
logger.setLevel(logging.INFO)

_store: DynamoApiKeyStore | None = None
_secrets: dict[str, SecretsManagerSource] = {}


def _get_store() -> DynamoApiKeyStore:
    global _store
    if _store is None:
        _store = DynamoApiKeyStore(os.environ["FOCAL_API_KEYS_TABLE"])
    return _store


def _secret_for(tenant_id: str) -> str | None:
    """The tenant's customer token secret (Secrets Manager, cached a few minutes per container)."""
    if tenant_id not in _secrets:
        _secrets[tenant_id] = SecretsManagerSource(prefix=f"focal/{tenant_id}/")
    return _secrets[tenant_id].get(CUSTOMER_TOKEN_SECRET)


def reset() -> None:
    """Forget the cached store and secrets (tests change the environment)."""
    global _store
    _store = None
    _secrets.clear()


def called_route(event: dict[str, Any]) -> tuple[str, str] | None:
    """(method, route template) of the call, from `methodArn`
    (`arn:aws:execute-api:<region>:<account>:<api>/<stage>/<METHOD>/<path>`); None when the ARN is
    malformed, names no known route, or disagrees with the event's `httpMethod` / `resource`."""
    arn = event.get("methodArn")
    if not isinstance(arn, str) or arn.count(":") < 5:
        return None
    parts = arn.split(":", 5)[5].split("/", 3)
    if len(parts) != 4 or not all(parts[:3]):
        return None
    method, path = parts[2].upper(), "/" + parts[3]
    route = route_of(method, path)
    if route is None:
        return None
    if event.get("httpMethod") not in (None, method) or event.get("resource") not in (None, route):
        return None
    return method, route


def policy(principal: str, effect: str, resource: str, tenant_id: str, context: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "principalId": principal,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": effect, "Resource": resource}],
        },
        "context": {"tenant_id": tenant_id, **(context or {})},
    }


def principal_context(principal: Principal) -> dict[str, str]:
    return {
        "scopes": " ".join(sorted(principal.scopes)),
        "customer_id": principal.customer_id,
        "trusted_backend": "true" if principal.may_assert_customer else "false",
    }


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        headers = event_credentials(event)
    except ConflictingCredentials:
        logger.info("authorizer: a credential header is given more than once")
        raise Exception("Unauthorized") from None
    api_keys = keys_from_headers(headers)
    if not api_keys:
        logger.info("authorizer: no API key in the request")
        raise Exception("Unauthorized")  # API Gateway answers 401
    try:
        principal = authenticate_keys(_get_store(), api_keys)
    except ConflictingCredentials:
        logger.info("authorizer: x-api-key and Authorization: Bearer carry keys of different principals")
        raise Exception("Unauthorized") from None
    if principal is None:
        logger.info("authorizer: unknown or disabled API key")
        raise Exception("Unauthorized")
    resource = str(event.get("methodArn", ""))
    route = called_route(event)
    scope = required_scope(*route) if route else None
    if scope is None or not principal.allows(scope):
        logger.info("authorizer: denied tenant %s (route %s needs %s)", principal.tenant_id,
                    " ".join(route) if route else "unknown", scope or "an unknown scope")
        return policy(f"tenant:{principal.tenant_id}", "Deny", resource or "*", principal.tenant_id)
    try:
        principal = with_customer_token(principal, headers, _secret_for)
    except CustomerTokenRefused as exc:
        logger.info("authorizer: customer token refused for tenant %s (%s)", principal.tenant_id, exc)
        raise Exception("Unauthorized") from None
    logger.info("authorizer: allowed tenant %s, %s %s", principal.tenant_id, *route)
    return policy(f"tenant:{principal.tenant_id}", "Allow", resource, principal.tenant_id, principal_context(principal))
