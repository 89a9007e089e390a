"""Customer tokens: which customer a chat request speaks for, signed by the tenant (HS256 JWT).

A token is `base64url(header) "." base64url(payload) "." base64url(signature)` (RFC 7519, no
padding), the signature HMAC-SHA256 over the first two parts with the tenant's secret
(`customer_token_secret`: Secrets Manager `focal/<tenant>/customer_token_secret` in AWS,
`FOCAL_SECRET_CUSTOMER_TOKEN_SECRET` locally). It travels in the `X-Focal-Customer-Token` header.

    header  {"alg": "HS256", "typ": "JWT"}            any other alg (none, HS512, RS256, ...) is refused
    payload {"sub": "<customer id>",                   required, [A-Za-z0-9_.:@-]{1,128}
             "aud": "<tenant id>",                     required: this tenant (a string, or a list holding it)
             "exp": <unix seconds>,                    required, in the future
             "iat": <unix seconds>, "nbf": <...>}      optional, not in the future

Pure standard library (hmac, hashlib, json, base64): the engine never imports boto3. Nothing here
logs; a refusal says what was wrong, never the token or the secret.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any

from focal.ids import CUSTOMER_ID

ALGORITHM = "HS256"
MAX_TOKEN_LENGTH = 4096
MIN_SECRET_LENGTH = 16
LEEWAY_S = 30  # clock skew allowed on exp / iat / nbf
clock = time.time  # read through the module so a test can hold time still
_SEGMENT = re.compile(r"[A-Za-z0-9_-]*")


class InvalidCustomerToken(ValueError):
    """The token is refused (malformed, wrong algorithm, bad signature, expired, wrong audience)."""


def _b64encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _b64decode(segment: str) -> bytes:
    if not _SEGMENT.fullmatch(segment) or len(segment) % 4 == 1:
        raise InvalidCustomerToken("malformed token")
    try:
        return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except (binascii.Error, ValueError):
        raise InvalidCustomerToken("malformed token") from None


def _json_object(segment: str) -> dict[str, Any]:
    try:
        value = json.loads(_b64decode(segment).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise InvalidCustomerToken("malformed token") from None
    if not isinstance(value, dict):
        raise InvalidCustomerToken("malformed token")
    return value


def _signature(signing_input: str, secret: str) -> bytes:
    return hmac.new(secret.encode("utf-8"), signing_input.encode("ascii"), hashlib.sha256).digest()


def _check_secret(secret: str | None) -> str:
    if not isinstance(secret, str) or len(secret) < MIN_SECRET_LENGTH:
        raise InvalidCustomerToken("no usable customer token secret for this tenant")
    return secret


def issue(customer_id: str, tenant_id: str, secret: str, ttl_s: int = 900, now: float | None = None) -> str:
    """A token for `customer_id` of `tenant_id`, valid for `ttl_s` seconds (what a tenant's backend does)."""
    if not CUSTOMER_ID.matches(customer_id):
        raise ValueError(f"customer id must be {CUSTOMER_ID.rule}")
    issued = int(clock() if now is None else now)
    header = _b64encode(json.dumps({"alg": ALGORITHM, "typ": "JWT"}, separators=(",", ":")).encode())
    claims = {"sub": customer_id, "aud": tenant_id, "iat": issued, "exp": issued + int(ttl_s)}
    payload = _b64encode(json.dumps(claims, separators=(",", ":")).encode())
    signing_input = f"{header}.{payload}"
    return f"{signing_input}.{_b64encode(_signature(signing_input, _check_secret(secret)))}"


def _number(claims: dict[str, Any], name: str, required: bool) -> float | None:
    value = claims.get(name)
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidCustomerToken(f"claim {name!r} must be a number of seconds" if value is not None
                                   else f"claim {name!r} is required")
    return float(value)


def verify(token: str, secret: str | None, audience: str, now: float | None = None) -> dict[str, Any]:
    """The token's claims when it is valid for `audience` (the tenant) at `now`; else InvalidCustomerToken."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
        raise InvalidCustomerToken("malformed token")
    parts = token.strip().split(".")
    if len(parts) != 3 or not all(parts):
        raise InvalidCustomerToken("malformed token")
    header = _json_object(parts[0])
    if header.get("alg") != ALGORITHM or header.get("typ", "JWT") != "JWT" or "crit" in header:
        raise InvalidCustomerToken("only HS256 tokens are accepted")
    expected = _signature(f"{parts[0]}.{parts[1]}", _check_secret(secret))
    if not hmac.compare_digest(expected, _b64decode(parts[2])):
        raise InvalidCustomerToken("bad signature")
    claims = _json_object(parts[1])
    at = clock() if now is None else now
    exp = _number(claims, "exp", required=True)
    assert exp is not None
    if at >= exp + LEEWAY_S:
        raise InvalidCustomerToken("token expired")
    for name in ("iat", "nbf"):
        value = _number(claims, name, required=False)
        if value is not None and value > at + LEEWAY_S:
            raise InvalidCustomerToken(f"claim {name!r} is in the future")
    aud = claims.get("aud")
    audiences = aud if isinstance(aud, list) else [aud]
    if not audience or audience not in audiences:
        raise InvalidCustomerToken("token is for another audience")
    sub = claims.get("sub")
    if not CUSTOMER_ID.matches(sub):
        raise InvalidCustomerToken("claim 'sub' must be a customer id")
    return claims
