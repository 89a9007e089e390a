"""Who is calling: the principal behind an API key (and, for chat, the customer it speaks for).

Every route needs one key scope: `chat` (turns), `publish` (agents), `approve` (approval answers);
`admin` holds them all. The customer of a chat request is never taken from the body: it comes from
the principal (a trusted backend key may assert it; otherwise a customer token signed by the tenant,
or anonymous). Used by the API Gateway authorizer and by `focal serve` alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

KeyScope = Literal["chat", "publish", "approve", "admin"]
SCOPES: tuple[KeyScope, ...] = ("chat", "publish", "approve", "admin")
ANONYMOUS = "anonymous"

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


class KeyLookup(Protocol):
    def principal_for(self, api_key: str) -> Principal | None:
        """The principal of an active key, or None (unknown, revoked)."""
        ...


def required_scope(method: str, route: str) -> KeyScope | None:
    """The scope a route needs (None: a public route such as the OpenAPI document)."""
    return ROUTE_SCOPES.get((method.upper(), route))


def authenticate(lookup: KeyLookup, api_key: str | None) -> Principal | None:
    """The principal of the request's API key, or None (401). Customer tokens are added here too."""
    if not api_key:
        return None
    return lookup.principal_for(api_key)


def chat_customer(principal: Principal, body_customer_id: str | None) -> str:
    """The customer a chat turn is for: asserted by a trusted backend key, else the principal's own
    (a verified customer token), else anonymous. A body's claim from any other caller is ignored."""
    if principal.may_assert_customer and body_customer_id:
        return body_customer_id
    return principal.customer_id
