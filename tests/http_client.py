"""A JSON request to a local server and its answer, errors included (the serve tests' one client)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


def http_call(base: str, method: str, path: str, body: Any = None, key: str | None = None,
              headers: dict[str, str] | None = None, raw: bytes | None = None) -> tuple[int, dict[str, Any], dict[str, str]]:
    """(status, JSON body, lower-cased headers); `raw` sends those bytes instead of `body` as JSON."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if key:
        req.add_header("x-api-key", key)
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read()), {k.lower(): v for k, v in resp.headers.items()}
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), {k.lower(): v for k, v in exc.headers.items()}
