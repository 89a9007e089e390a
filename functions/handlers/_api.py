"""What the Lambda-proxy API handlers (publish, approvals) share: the structured error body and the
tenant, taken from the authorizer's context only."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types


def error(status: int, code: str, message: str, **extra: Any) -> Response:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON,
                    body={"success": False, "error": {"code": code, "message": message, **extra}})


def path_param(app: APIGatewayRestResolver, name: str, matched: str) -> str:
    """The path parameter as API Gateway decoded it (`pathParameters`; `focal serve` passes the same). The resolver's
    own route match keeps percent-escapes and lets a trailing newline through, so its value is only the fallback."""
    value = (app.current_event.path_parameters or {}).get(name)
    return value if isinstance(value, str) else matched


def tenant_of(app: APIGatewayRestResolver) -> str | None:
    return app.current_event.request_context.authorizer.get("tenant_id")


NO_TENANT = (401, "unauthorized", "no tenant in the authorizer context")
