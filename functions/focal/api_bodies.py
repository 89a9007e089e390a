"""The JSON bodies the API reads, as typed models: a wrong type or value is a 400 naming the field and why.

`focal serve` and the Lambda handlers validate with these, and the OpenAPI document (focal.cli.openapi) is built
from them, so the documented body is the accepted one. Fields the API does not read are ignored, as API
Gateway's TurnRequest model does; a field it reads is never coerced (strict: "1" is no number, 1 no text).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from focal.models.ids import CustomerIdStr, IdStr
from focal.models.turn import MAX_MESSAGE_CHARS


class ApiError(Exception):
    """What an API route answers instead of a reply: an HTTP status, a stable code and a message (`focal serve`
    raises it in its routes and in the playground's reads, focal.web, and answers it as a JSON error body)."""

    def __init__(self, status: int, code: str, message: str, headers: Mapping[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, dict(headers or {})


class BodyInvalid(ValueError):
    """A body that does not fit its model; the message names each field and why."""


class TurnRequestBody(BaseModel):
    """The body of POST .../turns (API Gateway's TurnRequest model). tenant_id comes from the API key."""

    model_config = ConfigDict(strict=True, extra="ignore")

    message: str = Field(max_length=MAX_MESSAGE_CHARS, description="the customer's message")
    customer_id: CustomerIdStr | None = Field(
        default=None, description="honoured only for a trusted backend key; otherwise the customer comes from the "
                                  "X-Focal-Customer-Token header, else anonymous")
    turn_id: IdStr | None = Field(default=None, description="idempotency key of the turn; default: the request id")

    @field_validator("customer_id", "turn_id", mode="before")
    @classmethod
    def _absent_not_null(cls, value: Any) -> Any:
        if value is None:  # API Gateway's draft-4 model says `type: string`: leave the field out instead
            raise ValueError("must be a string (leave the field out instead of null)")
        return value


class ApprovalDecision(BaseModel):
    """The body of POST /v1/approvals/{approval_id}."""

    model_config = ConfigDict(strict=True, extra="ignore")

    decision: Literal["approve", "deny"] = Field(description="approve: the stored action runs once; deny: nothing runs")


Body = TypeVar("Body", bound=BaseModel)


def _why(error: Any) -> str:
    """`field: why`, in the API's words (never the value itself, only its kind)."""
    where = ".".join(str(part) for part in error["loc"]) or "body"
    kind, ctx, got = error["type"], error.get("ctx") or {}, _kind(error.get("input"))
    if kind == "missing":
        return f"{where}: required, and missing"
    if kind == "string_type":
        return f"{where}: must be a string (got {got})"
    if kind == "string_unicode":
        return f"{where}: contains an unpaired UTF-16 surrogate"
    if kind == "string_too_long":
        return f"{where}: longer than {ctx.get('max_length')} characters"
    if kind == "string_pattern_mismatch":
        return f"{where}: must be a string matching {ctx.get('pattern')}"
    if kind == "literal_error":
        return f"{where}: must be {ctx.get('expected')} (got {got})"
    if kind == "value_error":
        return f"{where}: {str(ctx.get('error') or error['msg'])}"
    return f"{where}: {error['msg']} (got {got})"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


def read_body(model: type[Body], doc: Any) -> Body:
    """`doc` (parsed JSON) as `model`; BodyInvalid naming every field that does not fit, never the values."""
    if not isinstance(doc, dict):
        raise BodyInvalid(f"body: must be a JSON object (got {_kind(doc)})")
    try:
        return model.model_validate(doc)
    except ValidationError as exc:
        raise BodyInvalid("; ".join(_why(e) for e in exc.errors(include_url=False))) from None
