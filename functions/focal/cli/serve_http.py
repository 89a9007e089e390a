"""The HTTP edge of `focal serve`: a Starlette app on uvicorn.

Order of a request: uvicorn's h11 parser (head size, `serve_server`), the edge checks (414, 431,
411, 413 by Content-Length), route match (404 / 405), the API key (401), its scope (403), the key's
rate (429), the body read under a deadline (408, 413), then the blocking work in a bounded thread
pool (`FocalApi`). Every answer is JSON with a request id; one access-log line per request.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping, MutableMapping
from datetime import UTC, datetime
from typing import Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Match, Route

from focal.adapters.api_keys import key_hash, keys_from_headers
from focal.api_bodies import ApiError
from focal.auth import ConflictingCredentials, Principal, authenticate_keys, required_scope
from focal.cli.serve_api import (
    AGENT_ROUTE,
    APPROVAL_ROUTE,
    MAX_APPROVAL_BODY_BYTES,
    MAX_BODY_BYTES,
    MAX_TURN_BODY_BYTES,
    OPENAPI_ROUTE,
    TURN_ROUTE,
    FocalApi,
    LocalApiKeyStore,
    Reply,
    ServeSettings,
    error_body,
)
from focal.credential_headers import single_credentials
from focal.web.openapi import PLAYGROUND_API, STATIC_ROUTE

log = logging.getLogger("focal.serve")
AccessLog = Callable[[dict[str, Any]], None]


class RateLimiter:
    """A token bucket per key hash, in process. Only keys that authenticated get a bucket."""

    def __init__(self, rate: float, burst: int, max_keys: int = 100_000, clock: Callable[[], float] = time.monotonic):
        self.rate, self.burst, self.max_keys, self.clock = rate, max(1, burst), max_keys, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def wait_for(self, key: str) -> float:
        """0 when the request may go (a token is taken), else the seconds until a token is there."""
        if self.rate <= 0:
            return 0.0
        now = self.clock()
        tokens, last = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        wait = 0.0 if tokens >= 1 else (1 - tokens) / self.rate
        self._buckets[key] = (tokens - 1 if wait == 0 else tokens, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return wait


def access_record(request_id: str, method: str, route: str, status: int, ms: float, tenant: str | None,
                  code: str | None = None) -> dict[str, Any]:
    """One access-log line: never a body, message, key or customer id; the route template, not the path."""
    record = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"), "request_id": request_id,
              "method": method, "route": route, "status": status, "ms": round(ms, 1), "tenant": tenant}
    if code:
        record["code"] = code
    return record


def _json_response(status: int, body: Any, headers: Mapping[str, str] | None = None) -> Response:
    return Response(json.dumps(body).encode("utf-8"), status_code=status, media_type="application/json",
                    headers=headers)


class Edge:
    """Outermost ASGI middleware: request id, head limits, JSON for anything that escapes, access log."""

    def __init__(self, app: Any, settings: ServeSettings, routes: list[Route], access_log: AccessLog | None):
        self.app, self.settings, self.routes, self.access_log = app, settings, routes, access_log

    def _route(self, scope: dict[str, Any]) -> str:
        for route in self.routes:
            if route.matches(scope)[0] is not Match.NONE:
                return route.path
        return "-"

    def _precheck(self, scope: dict[str, Any]) -> ApiError | None:
        s = self.settings
        if len(scope.get("raw_path", b"")) + len(scope.get("query_string", b"")) > s.max_url_bytes:
            return ApiError(414, "uri_too_long", f"the request target may have at most {s.max_url_bytes} bytes")
        headers = scope["headers"]
        if len(headers) > s.max_headers or sum(len(k) + len(v) + 4 for k, v in headers) > s.max_header_bytes:
            return ApiError(431, "headers_too_large",
                            f"at most {s.max_headers} headers and {s.max_header_bytes} bytes of request line and headers")
        for name, value in headers:
            if name == b"transfer-encoding" and b"chunked" in value.lower():
                return ApiError(411, "length_required", "send a Content-Length, not a chunked body")
            if name == b"content-length":
                if not value.strip().isdigit():
                    return ApiError(400, "bad_request", "Content-Length is not a number")
                if int(value) > MAX_BODY_BYTES:
                    return ApiError(413, "payload_too_large", f"a request body may have at most {MAX_BODY_BYTES} bytes")
        return None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = str(uuid.uuid4())
        state = scope.setdefault("state", {})
        state.update(request_id=request_id, started=time.monotonic(), tenant=None, error_code=None)
        declares_body = any(n == b"transfer-encoding" or (n == b"content-length" and v.strip() not in (b"", b"0"))
                            for n, v in scope["headers"])
        body_done = not declares_body
        status = 0

        async def receive_tracked() -> Any:
            nonlocal body_done
            message = await receive()
            if message["type"] == "http.request" and not message.get("more_body", False):
                body_done = True
            return message

        async def send_tagged(message: MutableMapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [*message.get("headers", []), (b"x-amzn-requestid", request_id.encode())]
                if not body_done and not any(k.lower() == b"connection" for k, _ in headers):
                    headers.append((b"connection", b"close"))  # an unread body must not be taken for the next request
                message = {**message, "headers": headers}
            await send(message)

        try:
            early = self._precheck(scope)
            if early is not None:
                state["error_code"] = early.code
                await _json_response(early.status, error_body(early.code, early.message, request_id),
                                     early.headers)(scope, receive_tracked, send_tagged)
            else:
                await self.app(scope, receive_tracked, send_tagged)
        except ClientDisconnect:
            status = status or 499  # the client went away mid-request; nothing to answer
        except Exception as exc:  # noqa: BLE001 - never a traceback or an HTML page to the caller
            log.error("unhandled %s in %s %s", type(exc).__name__, scope["method"], self._route(scope))
            log.debug("traceback of the unhandled error", exc_info=exc)  # opt-in: messages may hold request data
            if not status:
                state["error_code"] = "internal"
                await _json_response(500, error_body("internal", "internal error", request_id))(
                    scope, receive_tracked, send_tagged)
        finally:
            if self.access_log is not None:
                self.access_log(access_record(request_id, scope["method"], self._route(scope), status,
                                              1000 * (time.perf_counter() - started), state.get("tenant"),
                                              state.get("error_code")))


class Endpoints:
    def __init__(self, api: FocalApi, settings: ServeSettings):
        self.api, self.settings = api, settings
        self.pool = anyio.CapacityLimiter(settings.threads)
        self.key_pool = anyio.CapacityLimiter(4)  # a key store may be a database
        self.rate = RateLimiter(settings.rate_per_key, settings.rate_burst)

    async def run(self, fn: Callable[..., Reply], *args: Any) -> Reply:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args), limiter=self.pool)

    async def authorize(self, request: Request, route: str) -> Principal:
        """The key's principal for `route`; the request's credential headers, each given once, are kept on
        `request.state.credentials` (the customer token is read from there, never from the raw headers)."""
        keys = self.api.keys
        try:
            request.state.credentials = single_credentials(request.headers.raw)
            api_keys = keys_from_headers(request.state.credentials)
            api_key = api_keys[0] if api_keys else None
            if api_key is None or isinstance(keys, LocalApiKeyStore):  # in memory: no thread needed
                principal = authenticate_keys(keys, api_keys)
            else:
                principal = await anyio.to_thread.run_sync(authenticate_keys, keys, api_keys, limiter=self.key_pool)
        except ConflictingCredentials as exc:
            raise ApiError(401, exc.code, str(exc)) from None
        if principal is None or api_key is None:
            raise ApiError(401, "unauthorized", "Unauthorized")  # the gateway's messageString
        request.state.tenant = principal.tenant_id
        scope = required_scope(request.method, route)
        if scope is not None and not principal.allows(scope):
            raise ApiError(403, "forbidden", f"this API key does not have the {scope!r} scope")
        wait = self.rate.wait_for(key_hash(api_key))
        if wait > 0:
            raise ApiError(429, "rate_limited", f"more than {self.settings.rate_per_key:g} requests per second for this key",
                           {"Retry-After": str(max(1, math.ceil(wait)))})
        return principal

    async def read_body(self, request: Request, limit: int) -> bytes:
        length = request.headers.get("content-length")
        if length is not None and int(length) > limit:
            raise ApiError(413, "payload_too_large", f"a request body here may have at most {limit} bytes")
        deadline = request.state.started + self.settings.body_timeout
        chunks: list[bytes] = []
        size = 0
        try:
            with anyio.fail_after(max(0.0, deadline - time.monotonic())):
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > limit:
                        raise ApiError(413, "payload_too_large", f"a request body here may have at most {limit} bytes")
                    chunks.append(chunk)
        except TimeoutError:
            raise ApiError(408, "request_timeout", f"the body did not arrive within {self.settings.body_timeout:g} s",
                           {"Connection": "close"}) from None
        return b"".join(chunks)

    def respond(self, reply: Reply, request: Request) -> Response:
        if reply.raw is not None:
            payload = reply.raw.encode("utf-8")
        else:
            body = reply.body
            if isinstance(body, dict) and body.get("success") is False and isinstance(body.get("error"), dict):
                request.state.error_code = body["error"].get("code")
            payload = json.dumps(body).encode("utf-8")
        return Response(payload, status_code=reply.status, media_type="application/json", headers=reply.headers)

    async def turn(self, request: Request) -> Response:
        principal = await self.authorize(request, TURN_ROUTE)
        body = await self.read_body(request, MAX_TURN_BODY_BYTES)
        reply = await self.run(self.api.turn, dict(request.path_params), body, principal, request.state.credentials,
                               request.state.request_id)
        return self.respond(reply, request)

    async def publish(self, request: Request) -> Response:
        principal = await self.authorize(request, AGENT_ROUTE)
        if not self.api.publish_available():
            raise ApiError(405, "publish_unavailable",
                           "this server reads agents from files (--agent): edit the YAML file, it is reloaded on "
                           "change; publishing needs a writable config store (FOCAL_CONFIG_SOURCE=dynamodb)",
                           {"Allow": ""})
        return await self._proxy(request, "handlers.agents", AGENT_ROUTE, principal, MAX_BODY_BYTES)

    async def approval(self, request: Request) -> Response:
        principal = await self.authorize(request, APPROVAL_ROUTE)
        return await self._proxy(request, "handlers.approvals", APPROVAL_ROUTE, principal, MAX_APPROVAL_BODY_BYTES)

    async def _proxy(self, request: Request, module: str, route: str, principal: Principal, limit: int) -> Response:
        body = await self.read_body(request, limit)
        path = request.scope.get("raw_path", b"").decode("latin-1") or request.url.path
        reply = await self.run(self.api.proxy, module, request.method, route, path, dict(request.path_params),
                               dict(request.headers), body, principal.tenant_id, request.state.request_id)
        return self.respond(reply, request)

    async def openapi(self, request: Request) -> Response:
        return Response(self.api.openapi(), media_type="application/json")


PAGE_HEADERS = {  # the playground's own files only: no inline script, no other origin, no framing
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
}


class Playground:
    """The page at `/` (static files shipped in `focal.web`) and its read endpoints under /playground/api.

    Every read is for the key's tenant only. Reading sessions and traces needs `admin`, or `chat` on a
    trusted backend key (one that may already speak for any customer); pending approvals need `approve`."""

    def __init__(self, endpoints: Endpoints):
        from focal.web import playground

        self.endpoints, self.reads = endpoints, playground
        self.files = {name: (playground.STATIC_DIR / name).read_bytes() for name in playground.STATIC_FILES}

    def routes(self) -> list[Route]:
        a = PLAYGROUND_API
        return [Route("/", self.page, methods=["GET"]),
                Route(STATIC_ROUTE, self.static, methods=["GET"]),
                Route(f"{a}/agents", self.agents, methods=["GET"]),
                Route(f"{a}/agents/{{agent_id}}/sessions", self.sessions, methods=["GET"]),
                Route(f"{a}/agents/{{agent_id}}/sessions/{{session_id}}/turns", self.turns, methods=["GET"]),
                Route(f"{a}/agents/{{agent_id}}/sessions/{{session_id}}/test", self.test_case, methods=["GET"]),
                Route(f"{a}/agents/{{agent_id}}/sessions/{{session_id}}/flow", self.flow, methods=["GET"]),
                Route(f"{a}/approvals", self.approvals, methods=["GET"])]

    async def page(self, request: Request) -> Response:
        return Response(self.files["index.html"], media_type=self.reads.STATIC_FILES["index.html"], headers=PAGE_HEADERS)

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in self.files or name == "index.html":
            raise ApiError(404, "not_found", "no such playground file")
        return Response(self.files[name], media_type=self.reads.STATIC_FILES[name], headers=PAGE_HEADERS)

    async def _read(self, request: Request, route: str, scope: str, fn: Callable[..., Any], *args: Any) -> Response:
        principal = await self.endpoints.authorize(request, route)
        allowed = (principal.allows("approve") if scope == "approve" else
                   principal.allows("admin") or (principal.allows("chat") and principal.may_assert_customer))
        if not allowed:
            need = "the 'approve' scope" if scope == "approve" else "the 'admin' scope, or 'chat' on a trusted backend key"
            raise ApiError(403, "forbidden", f"reading this needs {need}")

        def work() -> Reply:
            return Reply(200, {"success": True, "items": fn(self.endpoints.api.deps, principal.tenant_id, *args)})

        return self.endpoints.respond(await self.endpoints.run(work), request)

    async def agents(self, request: Request) -> Response:
        return await self._read(request, f"{PLAYGROUND_API}/agents", "read", lambda deps, _tenant: self.reads.list_agents(deps))

    async def sessions(self, request: Request) -> Response:
        return await self._read(request, f"{PLAYGROUND_API}/agents/{{agent_id}}/sessions", "read",
                                self.reads.list_sessions, request.path_params["agent_id"])

    async def turns(self, request: Request) -> Response:
        p = request.path_params
        return await self._read(request, f"{PLAYGROUND_API}/agents/{{agent_id}}/sessions/{{session_id}}/turns", "read",
                                self.reads.session_turns, p["agent_id"], p["session_id"])

    async def test_case(self, request: Request) -> Response:
        p = request.path_params
        return await self._read(request, f"{PLAYGROUND_API}/agents/{{agent_id}}/sessions/{{session_id}}/test", "read",
                                self.reads.suite_yaml, p["agent_id"], p["session_id"])

    async def flow(self, request: Request) -> Response:
        p = request.path_params
        return await self._read(request, f"{PLAYGROUND_API}/agents/{{agent_id}}/sessions/{{session_id}}/flow", "read",
                                self.reads.session_flow, p["agent_id"], p["session_id"])

    async def approvals(self, request: Request) -> Response:
        return await self._read(request, f"{PLAYGROUND_API}/approvals", "approve", self.reads.pending_approvals)


def _error_response(request: Request, status: int, code: str, message: str, headers: Mapping[str, str] | None = None) -> Response:
    request.state.error_code = code
    return _json_response(status, error_body(code, message, request.state.request_id), headers)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return _error_response(request, exc.status, exc.code, exc.message, exc.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        allow = (exc.headers or {}).get("Allow", "")
        return _error_response(request, 405, "method_not_allowed", f"{request.method} is not allowed here; allowed: {allow}",
                               {"Allow": allow})
    if exc.status_code == 404:
        return _error_response(request, 404, "not_found", f"no route {request.url.path[:200]}; see GET {OPENAPI_ROUTE}")
    return _error_response(request, exc.status_code, "error", str(exc.detail)[:200], exc.headers)


async def _internal(request: Request, exc: Exception) -> Response:
    return _error_response(request, 500, "internal", "internal error")


def make_app(api: FocalApi, settings: ServeSettings | None = None, access_log: AccessLog | None = None) -> Starlette:
    settings = settings or ServeSettings()
    endpoints = Endpoints(api, settings)
    routes = [
        Route(TURN_ROUTE, endpoints.turn, methods=["POST"]),
        Route(AGENT_ROUTE, endpoints.publish, methods=["PUT"]),
        Route(APPROVAL_ROUTE, endpoints.approval, methods=["POST"]),
        Route(OPENAPI_ROUTE, endpoints.openapi, methods=["GET"]),  # HEAD too
        *Playground(endpoints).routes(),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(Edge, settings=settings, routes=routes, access_log=access_log)],
                    exception_handlers={ApiError: _api_error, HTTPException: _http_error, Exception: _internal})
    app.router.redirect_slashes = False  # a redirect would not be JSON
    return app
