"""Customer tokens: which customer a chat request speaks for, signed by the tenant (HS256 JWT, PyJWT).

A token is an RFC 7519 JWT signed with HMAC-SHA256 and the tenant's secret (`customer_token_secret`:
Secrets Manager `focal/<tenant>/customer_token_secret` in AWS, `FOCAL_SECRET_CUSTOMER_TOKEN_SECRET`
locally). It travels in the `X-Focal-Customer-Token` header.

    header  {"alg": "HS256", "typ": "JWT"}            any other alg (none, HS512, RS256, ...), another typ or
                                                       a `crit` header is refused
    payload {"sub": "<customer id>",                   required, [A-Za-z0-9_.:@-]{1,128}
             "aud": "<tenant id>",                     required: this tenant (a string, or a list holding it)
             "exp": <unix seconds>,                    required, in the future
             "iat": <unix seconds>, "nbf": <...>}      optional, not in the future

PyJWT parses the token (canonical base64url only), checks the algorithm against `["HS256"]` alone, the
signature and the audience. The times are checked here against the module's `clock` (PyJWT reads the
system clock and accepts numeric strings), so a test can hold time still. Nothing here logs; a refusal
says what was wrong, never the token or the secret.
"""

from __future__ import annotations

import math
import re
import time
from typing import Any

import jwt
from jwt.exceptions import InvalidSubjectError
from jwt.types import Options

from focal.ids import CUSTOMER_ID

ALGORITHM = "HS256"
MAX_TOKEN_LENGTH = 4096
MIN_SECRET_LENGTH = 16
LEEWAY_S = 30  # clock skew allowed on exp / iat / nbf
clock = time.time  # read through the module so a test can hold time still
# The compact form, unpadded (RFC 7515 §2): PyJWT also accepts a padded signature, a second spelling of one token.
_COMPACT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")

# PyJWT checks the signature, the algorithm, the audience and that these claims are present; the times are ours.
_OPTIONS: Options = {"verify_exp": False, "verify_iat": False, "verify_nbf": False,
                               "verify_aud": True, "verify_sub": True, "require": ["exp", "aud", "sub"]}


class InvalidCustomerToken(ValueError):
    """The token is refused (malformed, wrong algorithm, bad signature, expired, wrong audience)."""


def _check_secret(secret: str | None) -> str:
    if not isinstance(secret, str) or len(secret) < MIN_SECRET_LENGTH:
        raise InvalidCustomerToken("no usable customer token secret for this tenant")
    return secret


def issue(customer_id: str, tenant_id: str, secret: str, ttl_s: int = 900, now: float | None = None) -> str:
    """A token for `customer_id` of `tenant_id`, valid for `ttl_s` seconds (what a tenant's backend does)."""
    if not CUSTOMER_ID.matches(customer_id):
        raise ValueError(f"customer id must be {CUSTOMER_ID.rule}")
    issued = int(clock() if now is None else now)
    claims = {"sub": customer_id, "aud": tenant_id, "iat": issued, "exp": issued + int(ttl_s)}
    return jwt.encode(claims, _check_secret(secret), algorithm=ALGORITHM, headers={"typ": "JWT"})


def _refusal(exc: jwt.PyJWTError) -> str:
    """What was wrong, in our words (PyJWT's messages may quote parts of the token)."""
    if isinstance(exc, jwt.InvalidAlgorithmError):
        return "only HS256 tokens are accepted"
    if isinstance(exc, jwt.InvalidSignatureError):
        return "bad signature"
    if isinstance(exc, jwt.InvalidAudienceError) or (isinstance(exc, jwt.MissingRequiredClaimError) and exc.claim == "aud"):
        return "token is for another audience"
    if isinstance(exc, InvalidSubjectError) or (isinstance(exc, jwt.MissingRequiredClaimError) and exc.claim == "sub"):
        return "claim 'sub' must be a customer id"
    if isinstance(exc, jwt.MissingRequiredClaimError):
        return f"claim {exc.claim!r} is required"
    if isinstance(exc, jwt.DecodeError):
        return "malformed token"
    return "unsupported token header"  # e.g. an unknown `crit` extension


def _number(claims: dict[str, Any], name: str, required: bool) -> float | None:
    value = claims.get(name)
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidCustomerToken(f"claim {name!r} must be a number of seconds" if value is not None
                                   else f"claim {name!r} is required")
    return float(value)


def verify(token: str, secret: str | None, audience: str, now: float | None = None) -> dict[str, Any]:
    """The token's claims when it is valid for `audience` (the tenant) at `now`; else InvalidCustomerToken."""
    if not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH or not _COMPACT.fullmatch(token.strip()):
        raise InvalidCustomerToken("malformed token")
    if not isinstance(audience, str) or not audience:  # PyJWT would accept a token without `aud` for no audience
        raise InvalidCustomerToken("token is for another audience")
    key = _check_secret(secret)
    try:
        decoded = jwt.decode_complete(token.strip(), key, algorithms=[ALGORITHM], audience=audience, options=_OPTIONS)
    except jwt.PyJWTError as exc:
        raise InvalidCustomerToken(_refusal(exc)) from None
    header, claims = decoded["header"], decoded["payload"]
    if header.get("alg") != ALGORITHM or header.get("typ", "JWT") != "JWT" or "crit" in header:
        raise InvalidCustomerToken("only HS256 tokens are accepted")
    at = clock() if now is None else now
    exp = _number(claims, "exp", required=True)
    assert exp is not None
    if at >= exp + LEEWAY_S:
        raise InvalidCustomerToken("token expired")
    for name in ("iat", "nbf"):
        value = _number(claims, name, required=False)
        if value is not None and value > at + LEEWAY_S:
            raise InvalidCustomerToken(f"claim {name!r} is in the future")
    if not CUSTOMER_ID.matches(claims.get("sub")):
        raise InvalidCustomerToken("claim 'sub' must be a customer id")
    return claims
