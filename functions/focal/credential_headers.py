"""The credential headers of a request — the API key (`x-api-key`, `Authorization`) and the customer token
(`X-Focal-Customer-Token`) — each of which must be given once.

A credential given twice has no single meaning: servers and proxies disagree on which copy counts (the first, the
last, both joined by a comma), so reading either copy lets a caller pick the identity another layer did not check.
Two header lines, two names differing only in case, a list of values (API Gateway's `multiValueHeaders`), or
values joined by a comma (how proxies and API Gateway HTTP APIs merge a repeated header; no key or token holds a
comma) are refused with ConflictingCredentials (401 `conflicting_credentials`), in `focal serve`, in the API
Gateway authorizer and in the Lambda handlers behind it. Standard library only: the authorizer imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from focal.auth import CUSTOMER_TOKEN_HEADER, ConflictingCredentials

CREDENTIAL_HEADERS = ("x-api-key", "authorization", CUSTOMER_TOKEN_HEADER.lower())


def _text(value: Any) -> str | None:
    if isinstance(value, bytes):
        return value.decode("latin-1")
    return value if isinstance(value, str) else None


def single_credentials(pairs: Iterable[tuple[Any, Any]]) -> dict[str, str]:
    """The credential headers among (name, value) pairs — raw header lines, with repeats — by lower-case name;
    ConflictingCredentials when one is given more than once, holds several values, or is not text."""
    found: dict[str, str] = {}
    for raw_name, raw_value in pairs:
        name = (_text(raw_name) or "").lower()
        if name not in CREDENTIAL_HEADERS:
            continue
        value = _text(raw_value)
        if name in found:
            raise ConflictingCredentials(f"the {name} header is given more than once; send it once")
        if value is None or "," in value:
            raise ConflictingCredentials(f"the {name} header holds several values; send one")
        found[name] = value
    return found


def event_credentials(event: Mapping[str, Any]) -> dict[str, str]:
    """The credential headers of an API Gateway event (an authorizer's REQUEST event or a proxy event): `headers`
    (one value per name, the last one when a header was repeated) and `multiValueHeaders` (every value) must each
    hold one value per credential, and the same one."""
    headers, multi = event.get("headers") or {}, event.get("multiValueHeaders") or {}
    if not isinstance(headers, Mapping) or not isinstance(multi, Mapping):
        raise ConflictingCredentials("the request's headers cannot be read")
    single = single_credentials(headers.items())
    pairs: list[tuple[Any, Any]] = []
    for name, values in multi.items():
        if (_text(name) or "").lower() in CREDENTIAL_HEADERS:
            pairs += [(name, v) for v in values] if isinstance(values, list) else [(name, None)]
    listed = single_credentials(pairs)
    if any(single.get(name, value) != value for name, value in listed.items()):
        raise ConflictingCredentials("headers and multiValueHeaders disagree on a credential; send it once")
    return {**listed, **single}
