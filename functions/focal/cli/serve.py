"""`focal serve`: the API Gateway routes on loopback, backed by the local runner.

Each HTTP request goes through what API Gateway does, in its order: route match (404 / 405), the
API-key authorizer (401), the turn request model (400), then the integration — the turn through
`LocalRunner` (its TurnResult as the response mapping returns it), or the publish and approval
handlers called with the proxy event their Lambdas receive (same JSON, same status codes).

Errors always have the gateway's shape: `{"success": false, "error": {"code", "message", ...}}`.
No request body, message or API key is ever logged; the access log names method, route template,
status and milliseconds only.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import re
import secrets
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from focal.adapters.api_keys import key_from_headers, key_hash

MAX_BODY_BYTES = 10 * 1024 * 1024  # API Gateway's payload limit
MAX_MESSAGE_CHARS = 100_000
CUSTOMER_ID = re.compile(r"^[A-Za-z0-9_.:@-]{1,128}$")  # the API Gateway TurnRequest model
PATH_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")  # TurnRequest's agent_id / session_id
TENANT_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
STAGE = "live"

TURN_ROUTE = "/v1/agents/{agent_id}/sessions/{session_id}/turns"
AGENT_ROUTE = "/v1/agents/{agent_id}"
APPROVAL_ROUTE = "/v1/approvals/{approval_id}"
OPENAPI_ROUTE = "/openapi.json"
ROUTES: dict[str, tuple[str, ...]] = {
    TURN_ROUTE: ("POST",),
    AGENT_ROUTE: ("PUT",),
    APPROVAL_ROUTE: ("POST",),
    OPENAPI_ROUTE: ("GET", "HEAD"),
}


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, headers: Mapping[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, dict(headers or {})


def error_body(code: str, message: str, request_id: str | None = None, **extra: Any) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message, **extra}
    if request_id:
        error["request_id"] = request_id
    return {"success": False, "error": error}


# --- API keys ------------------------------------------------------------------------------------


class LocalApiKeyStore:
    """The local twin of `DynamoApiKeyStore`: keys are kept as their SHA-256 only, never in clear."""

    def __init__(self, keys: Mapping[str, str] | None = None):
        self._tenants: dict[str, str] = {}
        for api_key, tenant in (keys or {}).items():
            self.add(api_key, tenant)

    def add(self, api_key: str, tenant_id: str) -> None:
        if not api_key or not TENANT_ID.match(tenant_id):
            raise ValueError("an API key needs a non-empty key and a tenant id matching [A-Za-z0-9_.:-]{1,128}")
        self._tenants[key_hash(api_key)] = tenant_id

    def issue(self, tenant_id: str) -> str:
        api_key = "fk_" + secrets.token_urlsafe(32)
        self.add(api_key, tenant_id)
        return api_key

    def tenant_for(self, api_key: str) -> str | None:
        return self._tenants.get(key_hash(api_key))

    def __len__(self) -> int:
        return len(self._tenants)


def parse_key_specs(specs: list[str] | str | None) -> dict[str, str]:
    """`KEY=TENANT` items (a list, or one comma-separated string as in FOCAL_API_KEYS)."""
    if specs is None:
        return {}
    items = specs.split(",") if isinstance(specs, str) else specs
    keys: dict[str, str] = {}
    for item in (i.strip() for i in items):
        if not item:
            continue
        api_key, sep, tenant = item.rpartition("=")
        if not sep or not api_key or not tenant:
            raise ValueError("an API key is given as KEY=TENANT")
        keys[api_key] = tenant
    return keys


# --- the handlers' ports -------------------------------------------------------------------------

_DEPS: contextvars.ContextVar[Any] = contextvars.ContextVar("focal_serve_deps", default=None)
_INSTALL_LOCK = threading.Lock()


def _handler_deps() -> Any:
    """What the handlers' `deps_from_env()` returns under `focal serve`: this server's ports."""
    deps = _DEPS.get()
    if deps is not None:
        return deps
    from focal.wiring import deps_from_env

    return deps_from_env()


def _handler_app(module_name: str) -> Any:
    """The handler module's Powertools app, its `deps_from_env` pointed at the serving ports."""
    import importlib

    module = importlib.import_module(module_name)
    with _INSTALL_LOCK:
        if getattr(module, "deps_from_env", None) is not _handler_deps:
            module.deps_from_env = _handler_deps  # falls back to the real one outside a request
    return module.app


# --- the API -------------------------------------------------------------------------------------


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    raw: str | None = None  # a handler's body, passed through as it is


def _match(path: str) -> tuple[str, dict[str, str]] | None:
    parts = path.split("/")
    for template in ROUTES:
        tparts = template.split("/")
        if len(tparts) != len(parts):
            continue
        params: dict[str, str] = {}
        for t, p in zip(tparts, parts, strict=True):
            if t.startswith("{"):
                if not p:
                    break
                params[t[1:-1]] = unquote(p, errors="strict")
            elif t != p:
                break
        else:
            return template, params
    return None


class FocalApi:
    """Transport-free: `handle(method, path, headers, body)` → Reply, as API Gateway would answer."""

    def __init__(self, deps: Any, keys: LocalApiKeyStore):
        self.deps = deps
        self.keys = keys
        self._handler_lock = threading.Lock()  # a Powertools app keeps the current event on itself
        self._openapi: bytes | None = None

    def openapi(self) -> bytes:
        if self._openapi is None:
            from focal.cli.openapi import openapi_document

            self._openapi = json.dumps(openapi_document(), indent=2).encode()
        return self._openapi

    def handle(self, method: str, path: str, headers: Mapping[str, str], body: bytes, request_id: str) -> Reply:
        try:
            return self._handle(method, path, headers, body, request_id)
        except ApiError as exc:
            return Reply(exc.status, error_body(exc.code, exc.message, request_id), exc.headers)

    def _handle(self, method: str, path: str, headers: Mapping[str, str], body: bytes, request_id: str) -> Reply:
        try:
            matched = _match(path)
        except UnicodeDecodeError:
            raise ApiError(400, "bad_request", "the path is not valid percent-encoded UTF-8") from None
        if matched is None:
            raise ApiError(404, "not_found", f"no route {path[:200]}; see GET {OPENAPI_ROUTE}")
        route, params = matched
        allowed = ROUTES[route]
        if method not in allowed:
            raise ApiError(405, "method_not_allowed", f"{route} allows {', '.join(allowed)}",
                           {"Allow": ", ".join(allowed)})
        if route == OPENAPI_ROUTE:
            return Reply(200, None, raw=self.openapi().decode())
        tenant_id = self._authorize(headers)
        if route == TURN_ROUTE:
            return self._turn(params, body, tenant_id, request_id)
        if route == AGENT_ROUTE and not hasattr(self.deps.configs, "put_agent"):
            raise ApiError(405, "publish_unavailable",
                           "this server reads agents from files (--agent): edit the YAML file, it is reloaded on "
                           "change; publishing needs a writable config store (FOCAL_CONFIG_SOURCE=dynamodb)",
                           {"Allow": ""})
        module = "handlers.agents" if route == AGENT_ROUTE else "handlers.approvals"
        return self._proxy(module, method, route, path, params, headers, body, tenant_id, request_id)

    def _authorize(self, headers: Mapping[str, str]) -> str:
        api_key = key_from_headers(headers)
        tenant = self.keys.tenant_for(api_key) if api_key else None
        if tenant is None:
            raise ApiError(401, "unauthorized", "Unauthorized")  # the gateway's messageString
        return tenant

    def _turn(self, params: dict[str, str], body: bytes, tenant_id: str, request_id: str) -> Reply:
        for name in ("agent_id", "session_id"):
            if not PATH_ID.match(params[name]):
                raise ApiError(400, "bad_request", f"{name}: must match {PATH_ID.pattern}")
        doc = _json_body(body)
        if not isinstance(doc, dict):
            raise ApiError(400, "bad_request", "body: must be a JSON object")
        message = doc.get("message")
        if "message" not in doc:
            raise ApiError(400, "bad_request", "message: required string is missing")
        if not isinstance(message, str):
            raise ApiError(400, "bad_request", "message: must be a string")
        if len(message) > MAX_MESSAGE_CHARS:
            raise ApiError(400, "bad_request", f"message: longer than {MAX_MESSAGE_CHARS} characters")
        customer_id = doc.get("customer_id", "anonymous")
        if "customer_id" in doc and not (isinstance(customer_id, str) and CUSTOMER_ID.match(customer_id)):
            raise ApiError(400, "bad_request", f"customer_id: must be a string matching {CUSTOMER_ID.pattern}")
        turn_id = doc.get("turn_id")
        if "turn_id" in doc and not (isinstance(turn_id, str) and 1 <= len(turn_id) <= 128):
            raise ApiError(400, "bad_request", "turn_id: must be a string of 1 to 128 characters")
        for name, value in (("message", message), ("turn_id", turn_id)):
            if isinstance(value, str) and _has_lone_surrogate(value):
                raise ApiError(400, "bad_request", f"{name}: contains an unpaired UTF-16 surrogate")
        from focal.models.turn import TurnRequest
        from focal.pipeline.runner import LocalRunner

        request = TurnRequest(  # tenant only from the key; anything in the body is ignored
            tenant_id=tenant_id, agent_id=params["agent_id"], session_id=params["session_id"],
            customer_id=customer_id, turn_id=turn_id or request_id, message=message,
        )
        try:
            result = LocalRunner(self.deps).turn(request)
        except Exception:  # noqa: BLE001 - a failed execution: the response mapping's structured 500
            return Reply(500, {"success": False, "execution_path": "fallback", "response": "",
                               "error": {"code": "execution_failed", "message": "The turn could not be completed.",
                                         "request_id": request_id}})
        return Reply(200, result.model_dump(mode="json"))

    def _proxy(self, module: str, method: str, route: str, path: str, params: dict[str, str],
               headers: Mapping[str, str], body: bytes, tenant_id: str, request_id: str) -> Reply:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "bad_request", "body: not valid UTF-8") from None
        event = proxy_event(method, route, path, params, headers, text, tenant_id, request_id)
        app = _handler_app(module)
        token = _DEPS.set(self.deps)
        try:
            with self._handler_lock:
                out = app.resolve(event, None)
        finally:
            _DEPS.reset(token)
        status = int(out.get("statusCode", 500))
        raw = out.get("body") or ""
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        if status >= 400 and not (isinstance(parsed, dict) and isinstance(parsed.get("error"), dict)):
            # the resolver's own answers (e.g. its 404) in the gateway's error shape
            code = {404: "not_found", 405: "method_not_allowed"}.get(status, "error" if status < 500 else "internal")
            return Reply(status, error_body(code, str((parsed or {}).get("message", "request refused"))
                                            if isinstance(parsed, dict) else "request refused", request_id))
        return Reply(status, None, raw=raw)


def _json_body(body: bytes) -> Any:
    if not body.strip():
        raise ApiError(400, "bad_request", "body: a JSON object is required")
    try:
        return json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise ApiError(400, "bad_request", "body: not valid UTF-8") from None
    except ValueError as exc:
        raise ApiError(400, "bad_request", f"body: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def proxy_event(method: str, route: str, path: str, params: dict[str, str], headers: Mapping[str, str],
                body: str, tenant_id: str, request_id: str) -> dict[str, Any]:
    """The Lambda proxy integration event (REST API, payload 1.0) for an authorized request."""
    single = {k: v for k, v in headers.items()}
    return {
        "resource": route,
        "path": path,
        "httpMethod": method,
        "headers": single,
        "multiValueHeaders": {k: [v] for k, v in single.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": params,
        "stageVariables": None,
        "requestContext": {
            "resourcePath": route,
            "httpMethod": method,
            "path": f"/{STAGE}{path}",
            "stage": STAGE,
            "requestId": request_id,
            "requestTimeEpoch": int(time.time() * 1000),
            "authorizer": {"tenant_id": tenant_id, "principalId": f"tenant:{tenant_id}"},
            "identity": {"sourceIp": "127.0.0.1"},
        },
        "body": body,
        "isBase64Encoded": False,
    }


# --- HTTP transport ------------------------------------------------------------------------------


def _make_handler(api: FocalApi, log: bool) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "focal-serve"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - no request lines (paths hold ids)
            return

        def _serve(self) -> None:
            started = time.perf_counter()
            request_id = str(uuid.uuid4())
            path = urlsplit(self.path).path
            body = b""
            reply: Reply | None = None
            length_header = self.headers.get("Content-Length")
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                reply = Reply(411, error_body("length_required", "send a Content-Length, not a chunked body", request_id))
            elif length_header is not None:
                try:
                    length = int(length_header)
                    if length < 0:
                        raise ValueError
                except ValueError:
                    reply = Reply(400, error_body("bad_request", "Content-Length is not a number", request_id))
                else:
                    if length > MAX_BODY_BYTES:
                        reply = Reply(413, error_body("payload_too_large",
                                                      f"a request body may have at most {MAX_BODY_BYTES} bytes", request_id))
                    else:
                        body = self.rfile.read(length)
            if reply is None:
                headers = {k: v for k, v in self.headers.items()}
                reply = api.handle(self.command, path, headers, body, request_id)
            else:
                self.close_connection = True
            self._send(reply, request_id)
            if log:
                route = (_safe_match(path) or ("?",))[0]
                print(f"{self.command} {route} {reply.status} {1000 * (time.perf_counter() - started):.0f}ms",
                      file=sys.stderr, flush=True)

        def _send(self, reply: Reply, request_id: str) -> None:
            payload = (reply.raw if reply.raw is not None else json.dumps(reply.body)).encode("utf-8")
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("x-amzn-RequestId", request_id)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _serve

    return Handler


def _safe_match(path: str) -> tuple[str, dict[str, str]] | None:
    try:
        return _match(path)
    except UnicodeDecodeError:
        return None


class FocalServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def make_server(api: FocalApi, host: str = "127.0.0.1", port: int = 0, log: bool = False) -> FocalServer:
    return FocalServer((host, port), _make_handler(api, log))


@contextlib.contextmanager
def serving(api: FocalApi, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve in a background thread; yields the base URL (tests, `focal bench load`)."""
    server = make_server(api, host, port)
    thread = threading.Thread(target=server.serve_forever, name="focal-serve", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# --- CLI -----------------------------------------------------------------------------------------


def add_parser(sub: Any) -> None:
    s = sub.add_parser("serve", help="the API Gateway routes on loopback, backed by the local runner")
    s.add_argument("--agent", action="append", default=[],
                   help="agent YAML file (or folder); repeatable. Without it the FOCAL_* environment chooses the stores")
    s.add_argument("--db", default=".focal/focal.db")
    s.add_argument("--model", default=os.environ.get("FOCAL_MODEL"))
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8080)
    s.add_argument("--api-key", action="append", default=[], metavar="KEY=TENANT",
                   help="an accepted API key and its tenant; repeatable (also FOCAL_API_KEYS=K1=T1,K2=T2)")
    s.add_argument("--tenant", default=os.environ.get("FOCAL_TENANT", "local"),
                   help="tenant of the key generated when none is given")
    s.add_argument("--quiet", action="store_true", help="no access log")
    s.set_defaults(func=cmd_serve)


def build_api(agents: list[str], db: str, model: str | None, keys: LocalApiKeyStore) -> FocalApi:
    if agents:
        from focal.adapters.file_config import FileConfigStore
        from focal.wiring import local_deps

        deps = local_deps(agents[0], db, model=model)
        if len(agents) > 1:
            deps.configs = FileConfigStore(*agents)
    else:
        from focal.wiring import deps_from_env

        deps = deps_from_env()
    return FocalApi(deps, keys)


def cmd_serve(args: Any) -> int:
    try:
        keys = LocalApiKeyStore({**parse_key_specs(os.environ.get("FOCAL_API_KEYS")), **parse_key_specs(args.api_key)})
    except ValueError as exc:
        print(f"focal serve: {exc}", file=sys.stderr)
        return 2
    generated = keys.issue(args.tenant) if not len(keys) else None
    if args.db != ":memory:":
        os.makedirs(os.path.dirname(os.path.abspath(args.db)), exist_ok=True)
    api = build_api(args.agent, args.db, args.model, keys)
    server = make_server(api, args.host, args.port, log=not args.quiet)
    url = f"http://{args.host}:{server.server_address[1]}"
    print(f"focal serve: {url}  (OpenAPI: {url}{OPENAPI_ROUTE}; Ctrl-C to stop)", file=sys.stderr)
    if generated:
        print(f"API key for tenant {args.tenant!r} (shown once): {generated}", file=sys.stderr)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0

