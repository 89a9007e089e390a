"""Who is calling: the principal behind an API key (and, for chat, the customer it speaks for).

Every route needs one key scope: `chat` (turns), `publish` (agents), `approve` (approval answers);
`admin` holds them all. The customer of a chat request is never taken from the body: it comes from
the principal (a trusted backend key may assert it; otherwise a customer token signed by the tenant,
or anonymous). Used by the API Gateway authorizer and by `focal serve` alike.

Keys are stored as `KeyRecord`s (hash only: adapters/api_keys.py in DynamoDB,
adapters/sqlite_api_keys.py locally); customer tokens are HS256 JWTs (focal/customer_tokens.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from focal.customer_tokens import InvalidCustomerToken, verify
from focal.ids import ID

KeyScope = Literal["chat", "publish", "approve", "admin"]
SCOPES: tuple[KeyScope, ...] = ("chat", "publish", "approve", "admin")
ANONYMOUS = "anonymous"
CUSTOMER_TOKEN_HEADER = "X-Focal-Customer-Token"
CUSTOMER_TOKEN_SECRET = "customer_token_secret"  # the secret's name: focal/<tenant>/<name>, FOCAL_SECRET_<NAME>

TURN_ROUTE = "/v1/agents/{agent_id}/sessions/{session_id}/turns"
AGENT_ROUTE = "/v1/agents/{agent_id}"
APPROVAL_ROUTE = "/v1/approvals/{approval_id}"
ROUTE_SCOPES: dict[tuple[str, str], KeyScope] = {
    ("POST", TURN_ROUTE): "chat",
    ("PUT", AGENT_ROUTE): "publish",
    ("POST", APPROVAL_ROUTE): "approve",
}


@dataclass(frozen=True)
class Principal:
    tenant_id: str
    scopes: frozenset[str] = field(default_factory=lambda: frozenset({"admin"}))
    customer_id: str = ANONYMOUS  # the authenticated customer of a chat request
    may_assert_customer: bool = False  # a trusted backend key: the request may name its customer

    def allows(self, scope: str) -> bool:
        return scope in self.scopes or "admin" in self.scopes


@dataclass(frozen=True)
class KeyRecord:
    """What is stored about a key (never the key): `key_id` is a short prefix of its SHA-256."""

    key_id: str
    tenant_id: str
    scopes: frozenset[str]
    label: str = ""
    created_at: int = 0
    disabled: bool = False
    trusted_backend: bool = False  # may assert the customer of a chat request

    def principal(self) -> Principal | None:
        """The key's principal; None for a disabled key, or one whose tenant cannot be an id (stored before ids were
        checked whole): it can do nothing. A record without scopes can do nothing either."""
        if self.disabled or not ID.matches(self.tenant_id):
            return None
        return Principal(tenant_id=self.tenant_id, scopes=frozenset(s for s in self.scopes if s in SCOPES),
                         may_assert_customer=self.trusted_backend)


def parse_scopes(values: Iterable[str]) -> frozenset[str]:
    """Validated key scopes (at least one, each one of SCOPES); ValueError otherwise."""
    scopes = frozenset(str(v).strip().lower() for v in values if str(v).strip())
    unknown = sorted(scopes - set(SCOPES))
    if unknown or not scopes:
        raise ValueError(f"a key needs one or more scopes out of {', '.join(SCOPES)}"
                         + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
    return scopes


MAX_LABEL_CHARS = 200


@dataclass(frozen=True)
class KeyRequest:
    """What a new key is created with (`focal keys create`, the key stores' `create`, `focal serve --api-key`)."""

    tenant_id: str
    scopes: frozenset[str]
    label: str = ""
    trusted_backend: bool = False

    @classmethod
    def checked(cls, tenant_id: Any, scopes: Any, label: Any = "", trusted_backend: Any = False) -> KeyRequest:
        """The request, each field checked: ValueError naming the field that is wrong and why."""
        if not ID.matches(tenant_id):
            raise ValueError(f"tenant_id: must be {ID.rule}")
        if isinstance(scopes, str | bytes) or not isinstance(scopes, Iterable):
            raise ValueError(f"scopes: must be a list out of {', '.join(SCOPES)}")
        try:
            checked_scopes = parse_scopes(scopes)
        except ValueError as exc:
            raise ValueError(f"scopes: {exc}") from None
        if not isinstance(label, str) or len(label) > MAX_LABEL_CHARS:
            raise ValueError(f"label: must be text of at most {MAX_LABEL_CHARS} characters")
        if not isinstance(trusted_backend, bool):
            raise ValueError("trusted_backend: must be true or false")
        return cls(tenant_id, checked_scopes, label, trusted_backend)


class CustomerTokenRefused(Exception):
    """The request carried a customer token that is not valid for the key's tenant (answer 401)."""


class KeyLookup(Protocol):
    def principal_for(self, api_key: str) -> Principal | None:
        """The principal of an active key, or None (unknown, revoked)."""
        ...


def required_scope(method: str, route: str) -> KeyScope | None:
    """The scope a route needs (None: a public route such as the OpenAPI document)."""
    return ROUTE_SCOPES.get((method.upper(), route))


def _route_pattern(route: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\{[a-z_]+\\}", "[^/]+", re.escape(route)) + "$")


_PATTERNS = {route: _route_pattern(route) for _, route in ROUTE_SCOPES}


def route_of(method: str, path: str) -> str | None:
    """The route template a concrete path belongs to for `method` (None: no such route)."""
    for (route_method, route), pattern in ((key, _PATTERNS[key[1]]) for key in ROUTE_SCOPES):
        if route_method == method.upper() and pattern.fullmatch(path):
            return route
    return None


def authenticate(lookup: KeyLookup, api_key: str | None) -> Principal | None:
    """The principal of the request's API key, or None (401). The customer token is checked by
    `with_customer_token` (it needs the request's headers and the tenant's secret)."""
    if not api_key:
        return None
    return lookup.principal_for(api_key)


class ConflictingCredentials(Exception):
    """The request's credentials have no single meaning: two API keys (x-api-key and Authorization: Bearer) that are
    not the same principal, or a credential header given more than once (focal.credential_headers)."""

    code = "conflicting_credentials"


def authenticate_keys(lookup: KeyLookup, api_keys: list[str]) -> Principal | None:
    """The principal of the request's API keys (`keys_from_headers`), or None (401). Two keys must name the same
    principal (tenant, scopes, trusted backend): else ConflictingCredentials (401), never the first one's tenant."""
    if not api_keys:
        return None
    principals = [lookup.principal_for(key) for key in api_keys]
    if len(principals) > 1 and (None in principals or len(set(principals)) > 1):
        raise ConflictingCredentials("x-api-key and Authorization: Bearer carry different API keys that are not the "
                                     "same principal; send one key")
    return principals[0]


def chat_customer(principal: Principal, body_customer_id: str | None) -> str:
    """The customer a chat turn is for: asserted by a trusted backend key, else the principal's own
    (a verified customer token), else anonymous. A body's claim from any other caller is ignored."""
    if principal.may_assert_customer and body_customer_id:
        return body_customer_id
    return principal.customer_id


def with_customer_token(principal: Principal, headers: Mapping[str, Any] | None,
                        secret_for: Callable[[str], str | None], now: float | None = None) -> Principal:
    """The principal speaking for the customer of the request's `X-Focal-Customer-Token`, verified with
    the tenant's secret (`secret_for(tenant_id)`). No token: the principal unchanged. A token that does
    not verify (or a tenant without a secret): CustomerTokenRefused, never a silent fallback."""
    wanted = CUSTOMER_TOKEN_HEADER.lower()
    values = [v for k, v in (headers or {}).items() if str(k).lower() == wanted]
    if not values:
        return principal
    if len(values) != 1 or not isinstance(values[0], str):
        raise CustomerTokenRefused("one customer token header, as text")
    try:
        claims = verify(values[0], secret_for(principal.tenant_id), audience=principal.tenant_id, now=now)
    except InvalidCustomerToken as exc:
        raise CustomerTokenRefused(str(exc)) from None
    return replace(principal, customer_id=claims["sub"])
