"""Runs `http` tools with the standard library (`urllib.request`): URL template, JSON body, secret
headers, per-attempt timeout, bounded retries, JSON object answer.

Every failure is a `ToolError` with a short message that names the tool and what went wrong (HTTP
status, timeout, invalid JSON, missing secret) — never a secret, a URL with customer values in it,
or the response text; a `ToolOutcomeUnknown` when the request may have done its work (a timeout or a
connection lost once sent, a server error other than 503, an unreadable success answer). Redirects are
not followed (they would carry secret headers elsewhere).

Each attempt resolves the host once and connects to an address it checked (`pinned_http`): with
`allow_private_hosts=False` a name that later resolves elsewhere (DNS rebinding) still cannot reach a
private address. Proxy settings from the environment are not used (a proxy would resolve the name
after the check).

A call whose context carries an idempotency key (the side-effecting ones) sends it as the
`Idempotency-Key` header, the same on every attempt, so the service can answer a repeat with its first
result; it replaces a header of that name in the tool definition and, like secrets, is never logged.

Every call with a context sends the authenticated customer id (`ToolCallContext.customer_id`,
"anonymous" when the request had none) as `X-Focal-Customer-Id`, replacing any header of that name in
the tool definition, so the service can check the customer owns what the call names. The secret that
signs customer tokens (`customer_token_secret`) is never available to a tool header. Secrets are filled
in headers only (a `${secret:NAME}` in a url or body is refused by `focal validate`), and a secret value
that the service echoes back is replaced by ``[secret]`` in the answer before it becomes outputs.
"""

from __future__ import annotations

import http.client
import json
import logging
import socket
import ssl
import time
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode, urlsplit

from focal.adapters.pinned_http import BadURL, HostRefused, exchange
from focal.adapters.tool_retry import BACKOFF_BASE_S, TransientToolError, json_object, with_retries
from focal.errors import ToolError, ToolInputInvalid
from focal.models.agent import AgentConfig, Tool, ToolKind
from focal.models.turn import ToolCallContext
from focal.ports import SecretSource
from focal.tool_templates import (
    BODY_METHODS,
    RESERVED_SECRETS,
    SECRET,
    MissingArgument,
    UnsafePathValue,
    fill_body,
    fill_url,
    query_value,
)

log = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 1_000_000
USER_AGENT = "focal-tools/1"
IDEMPOTENCY_HEADER = "Idempotency-Key"
CUSTOMER_HEADER = "X-Focal-Customer-Id"
REFUSED_STATUSES = (429, 503)
MIN_SCRUBBED_SECRET = 4  # shorter secret values are not searched for in answers (they would mangle ordinary text)


class HttpToolRunner:
    """`allow_private_hosts=False` (AWS) refuses hosts that resolve to loopback, private, link-local
    or reserved addresses, so an agent file cannot reach the function's own network neighbours.
    `tls`: how HTTPS certificates are verified (the system's trust store by default)."""

    def __init__(self, secrets: SecretSource, *, allow_private_hosts: bool = True,
                 sleep: Callable[[float], None] = time.sleep, backoff_base_s: float = BACKOFF_BASE_S,
                 tls: ssl.SSLContext | None = None):
        self.secrets = secrets
        self.allow_private_hosts = allow_private_hosts
        self.sleep = sleep
        self.backoff_base_s = backoff_base_s
        self.tls = tls or ssl.create_default_context()

    # --- the request -------------------------------------------------------------------------
    def build_request(self, tool: Tool, arguments: dict[str, Any],
                      idempotency_key: str | None = None, customer_id: str | None = None) -> urllib.request.Request:
        assert tool.url is not None
        method = tool.http_method
        try:
            url, used = fill_url(tool.url, arguments)
            data: bytes | None = None
            if tool.body is not None:
                data = json.dumps(fill_body(tool.body, arguments), default=str).encode()
            elif method in BODY_METHODS:
                data = json.dumps(arguments, default=str).encode()
            else:
                rest = {k: query_value(v) for k, v in arguments.items() if k not in used and v is not None}
                if rest:
                    url += ("&" if urlsplit(url).query else "?") + urlencode(rest)
        except MissingArgument as exc:
            raise ToolError(f"tool {tool.id!r}: argument {exc.args[0]!r} is needed by its url or body") from None
        except UnsafePathValue as exc:  # names the argument, never its value
            raise ToolInputInvalid(f"tool {tool.id!r}: argument {exc.name!r} {exc.why}", argument=exc.name) from None
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if data is not None:
            headers["Content-Type"] = "application/json"
        for name, value in tool.headers.items():
            headers[name] = SECRET.sub(lambda m: self._secret(tool, m.group(1)), value)
        if idempotency_key:
            headers = {k: v for k, v in headers.items() if k.lower() != IDEMPOTENCY_HEADER.lower()}
            headers[IDEMPOTENCY_HEADER] = idempotency_key
        if customer_id is not None:
            headers = {k: v for k, v in headers.items() if k.lower() != CUSTOMER_HEADER.lower()}
            headers[CUSTOMER_HEADER] = customer_id
        return urllib.request.Request(url, data=data, headers=headers, method=method)

    def _secret(self, tool: Tool, name: str) -> str:
        value = None if name.strip().lower() in RESERVED_SECRETS else self.secrets.get(name)
        if value is None:
            raise ToolError(f"tool {tool.id!r}: secret {name!r} is not available")
        return value

    # --- one attempt -------------------------------------------------------------------------
    def _attempt(self, tool: Tool, request: urllib.request.Request) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            headers = {name.title(): value for name, value in request.header_items()}  # as urllib sends them
            answer = exchange(request.get_method(), request.full_url, headers, request.data,  # type: ignore[arg-type]
                              timeout=tool.timeout_s, allow_private=self.allow_private_hosts, tls=self.tls,
                              max_bytes=MAX_RESPONSE_BYTES)
        except BadURL:
            raise ToolError(f"tool {tool.id!r}: url must be http(s) with a host and a valid port") from None
        except HostRefused:
            raise ToolError(f"tool {tool.id!r}: host resolves to a non-public address, which is not allowed") from None
        except ssl.SSLCertVerificationError:
            raise ToolError(f"tool {tool.id!r}: the server's certificate is not valid for its host") from None
        except socket.gaierror:
            raise TransientToolError(f"tool {tool.id!r}: host could not be resolved", maybe_sent=False) from None
        except ConnectionRefusedError:
            raise TransientToolError(f"tool {tool.id!r}: connection refused", maybe_sent=False) from None
        except TimeoutError:
            raise TransientToolError(f"tool {tool.id!r} timed out after {tool.timeout_s}s") from None
        except (OSError, http.client.HTTPException) as exc:
            raise TransientToolError(f"tool {tool.id!r}: connection failed ({type(exc).__name__})") from None
        status = answer.status
        log.info("tool %s: HTTP %s in %.0f ms", tool.id, status, (time.perf_counter() - started) * 1000)
        if not 200 <= status < 300:
            message = f"tool {tool.id!r}: HTTP {status}"
            if status >= 500 or status == 429:
                # throttled or unavailable: refused before any work; any other server error may have done part of it
                raise TransientToolError(message, maybe_sent=status not in REFUSED_STATUSES)
            if 300 <= status < 400:
                raise ToolError(f"{message} (redirects are not followed)")
            raise ToolError(message)
        return json_object(tool.id, answer.body, MAX_RESPONSE_BYTES)

    def run(self, agent: AgentConfig, tool: Tool, arguments: dict[str, Any],  # noqa: ARG002
            context: ToolCallContext | None = None) -> dict[str, Any]:
        if tool.kind != ToolKind.http or not tool.url:
            raise ToolError(f"tool {tool.id!r} is not an http tool")
        request = self.build_request(tool, arguments, context.idempotency_key if context else None,
                                     context.customer_id if context else None)
        result = with_retries(tool, lambda: self._attempt(tool, request), sleep=self.sleep, base_s=self.backoff_base_s)
        sent = [self._secret(tool, name) for value in tool.headers.values() for name in SECRET.findall(value)]
        return scrub_secrets(result, [s for s in sent if len(s) >= MIN_SCRUBBED_SECRET])


def scrub_secrets(value: Any, secrets: list[str]) -> Any:
    """`value` (an answer) with every secret the call sent replaced by ``[secret]``: a service that echoes its
    request headers must not put a secret into outputs, which reach turn records, prompts and replies."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, "[secret]")
        return value
    if isinstance(value, dict):
        return {scrub_secrets(k, secrets): scrub_secrets(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_secrets(v, secrets) for v in value]
    return value
