"""What the Lambda-proxy API handlers (publish, approvals) share: the structured error body and the
tenant, taken from the authorizer's context only — and only for a request whose credential headers are each given
once (the authorizer refuses the others; checked again here, where the event's headers are at hand)."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types

from focal.auth import ConflictingCredentials
from focal.credential_headers import event_credentials


def error(status: int, code: str, message: str, **extra: Any) -> Response:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON,
                    body={"success": False, "error": {"code": code, "message": message, **extra}})


def path_param(app: APIGatewayRestResolver, name: str, matched: str) -> str:
    """The path parameter as API Gateway decoded it (`pathParameters`; `focal serve` passes the same). The resolver's
    own route match keeps percent-escapes and lets a trailing newline through, so its value is only the fallback."""
    value = (app.current_event.path_parameters or {}).get(name)
    return value if isinstance(value, str) else matched


def caller_tenant(app: APIGatewayRestResolver) -> str | Response:
    """The authorizer's tenant, or the 401 to answer: a credential header given more than once
    (`conflicting_credentials`), or no tenant in the authorizer's context."""
    try:
        event_credentials(app.current_event.raw_event)
    except ConflictingCredentials as exc:
        return error(401, exc.code, str(exc))
    tenant_id = app.current_event.request_context.authorizer.get("tenant_id")
    if not isinstance(tenant_id, str) or not tenant_id:
        return error(401, "unauthorized", "no tenant in the authorizer context")
    return tenant_id
