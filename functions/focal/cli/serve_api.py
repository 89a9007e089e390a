"""What `focal serve` answers, free of any transport: keys, the turn, and the Lambda proxy handlers.

The HTTP edge (`serve_http`) reads the request and calls these blocking functions in its thread
pool; they return a `Reply` or raise `ApiError`. The publish and approval routes call the same
Powertools handlers as their Lambdas, with the proxy event those Lambdas receive (`proxy_event`).

Every error has the gateway's shape: `{"success": false, "error": {"code", "message", "request_id"}}`.
"""

from __future__ import annotations

import contextvars
import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from focal.adapters.api_keys import key_hash
from focal.api_bodies import ApiError
from focal.auth import (
    CUSTOMER_TOKEN_SECRET,
    SCOPES,
    CustomerTokenRefused,
    KeyRequest,
    Principal,
    chat_customer,
    with_customer_token,
)
from focal.ids import ID
from focal.safe_json import BodyRejected, loads_bounded

MAX_BODY_BYTES = 10 * 1024 * 1024  # API Gateway's payload limit (publish)
MAX_TURN_BODY_BYTES = 2 * 1024 * 1024  # 100,000 characters of up to 12 bytes each as JSON escapes
MAX_APPROVAL_BODY_BYTES = 64 * 1024
MAX_JSON_DEPTH = 64
STAGE = "live"

TURN_ROUTE = "/v1/agents/{agent_id}/sessions/{session_id}/turns"
AGENT_ROUTE = "/v1/agents/{agent_id}"
APPROVAL_ROUTE = "/v1/approvals/{approval_id}"
OPENAPI_ROUTE = "/openapi.json"

# A turn result's error code → the HTTP status `focal serve` answers with (anything else: 200).
TURN_ERROR_STATUS = {"session_conflict": 409, "turn_id_reused": 409, "turn_in_progress": 409, "session_not_yours": 403}
AGENT_NOT_FOUND = ("agent_not_found", "stage_failed:AgentNotFound")


def error_body(code: str, message: str, request_id: str | None = None, **extra: Any) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message, **extra}
    if request_id:
        error["request_id"] = request_id
    return {"success": False, "error": error}


@dataclass(frozen=True)
class ServeSettings:
    backlog: int = 2048  # listen queue (the kernel caps it at net.core.somaxconn, 4096 here)
    limit_concurrency: int = 2048  # open connections or requests in flight; above it: 503 + Retry-After
    threads: int = 8  # turns (and publish/approval handlers) run at most this many at a time
    timeout_keep_alive: int = 5  # an idle keep-alive connection is closed after this
    head_timeout: float = 10.0  # request line + headers must arrive within this (else 408, closed)
    body_timeout: float = 30.0  # the whole body must arrive within this from the end of the head
    max_url_bytes: int = 8192
    max_header_bytes: int = 16384  # request line + headers (uvicorn's h11_max_incomplete_event_size)
    max_headers: int = 100
    rate_per_key: float = 20.0  # requests per second per API key (token bucket); 0 = no limit
    rate_burst: int = 40


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    raw: str | None = None  # a handler's body, passed through as it is


# --- API keys ------------------------------------------------------------------------------------


class LocalApiKeyStore:
    """Keys given on the command line (`KEY=TENANT[:scope,...]`), kept as their SHA-256 only.

    Implements `focal.auth.KeyLookup`; `focal serve` accepts any object with `principal_for`.
    """

    def __init__(self, keys: Mapping[str, str | Principal] | None = None):
        self._principals: dict[str, Principal] = {}
        for api_key, who in (keys or {}).items():
            if isinstance(who, Principal):
                self.add(api_key, who.tenant_id, who.scopes, trusted_backend=who.may_assert_customer)
            else:
                self.add(api_key, who)

    def add(self, api_key: str, tenant_id: str, scopes: frozenset[str] | set[str] | None = None,
            trusted_backend: bool = False) -> None:
        """`scopes` None: every scope (admin). A trusted backend key may name the customer of a chat request."""
        if not api_key:
            raise ValueError("an API key needs a non-empty key")
        wanted = KeyRequest.checked(tenant_id, ("admin",) if scopes is None else scopes, trusted_backend=trusted_backend)
        self._principals[key_hash(api_key)] = Principal(wanted.tenant_id, wanted.scopes,
                                                        may_assert_customer=wanted.trusted_backend)

    def issue(self, tenant_id: str, scopes: frozenset[str] | set[str] | None = None) -> str:
        api_key = "fk_" + secrets.token_urlsafe(32)
        self.add(api_key, tenant_id, scopes)
        return api_key

    def principal_for(self, api_key: str) -> Principal | None:
        return self._principals.get(key_hash(api_key))

    def tenant_for(self, api_key: str) -> str | None:
        principal = self.principal_for(api_key)
        return principal.tenant_id if principal else None

    def __len__(self) -> int:
        return len(self._principals)


def _tenant_and_scopes(spec: str) -> Principal:
    tenant, sep, scope_list = spec.rpartition(":")
    scopes = [s.strip() for s in scope_list.split(",")] if sep else []
    if sep and tenant and scopes and all(s in SCOPES for s in scopes):
        return Principal(tenant, frozenset(scopes))
    return Principal(spec)  # no scope list (a tenant id may itself contain ':'): every scope


def parse_key_specs(specs: list[str] | str | None) -> dict[str, Principal]:
    """`KEY=TENANT` or `KEY=TENANT:chat,approve` entries (a list, or one comma-separated string as in
    FOCAL_API_KEYS, where an entry that is only a scope name continues the previous key's list)."""
    if specs is None:
        return {}
    items = specs.split(",") if isinstance(specs, str) else [p for s in specs for p in s.split(",")]
    merged: list[str] = []
    for item in (i.strip() for i in items):
        if item and "=" not in item and item in SCOPES and merged and ":" in merged[-1].rpartition("=")[2]:
            merged[-1] += "," + item
        elif item:
            merged.append(item)
    keys: dict[str, Principal] = {}
    for item in merged:
        api_key, sep, spec = item.rpartition("=")
        if not sep or not api_key or not spec:
            raise ValueError("an API key is given as KEY=TENANT or KEY=TENANT:scope,scope")
        keys[api_key] = _tenant_and_scopes(spec)
    return keys


def env_customer_token_secret(tenant_id: str) -> str | None:
    """Locally one secret for every tenant: FOCAL_SECRET_CUSTOMER_TOKEN_SECRET."""
    from focal.adapters.secrets import EnvSecretSource

    return EnvSecretSource().get(CUSTOMER_TOKEN_SECRET)


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

    module: Any = importlib.import_module(module_name)  # a handler module: its deps_from_env is replaced
    with _INSTALL_LOCK:
        if getattr(module, "deps_from_env", None) is not _handler_deps:
            module.deps_from_env = _handler_deps  # falls back to the real one outside a request
    return module.app


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


# --- the API -------------------------------------------------------------------------------------


class FocalApi:
    """The routes' work, blocking (the HTTP edge runs it in a bounded thread pool)."""

    def __init__(self, deps: Any, keys: Any, secret_for: Callable[[str], str | None] | None = None):
        if not callable(getattr(keys, "principal_for", None)):
            raise TypeError("keys must implement focal.auth.KeyLookup (principal_for)")
        self.deps = deps
        self.keys = keys
        self.secret_for = secret_for or env_customer_token_secret  # the tenant's customer token secret
        self._handler_lock = threading.Lock()  # a Powertools app keeps the current event on itself
        self._openapi: bytes | None = None

    def openapi(self) -> bytes:
        if self._openapi is None:
            from focal.cli.openapi import openapi_document

            self._openapi = json.dumps(openapi_document(), indent=2).encode()
        return self._openapi

    def publish_available(self) -> bool:
        return hasattr(self.deps.configs, "put_agent")

    def turn(self, params: dict[str, str], body: bytes, principal: Principal, headers: Mapping[str, str],
             request_id: str) -> Reply:
        for name in ("agent_id", "session_id"):
            if not ID.matches(params[name]):
                raise ApiError(400, "bad_request", f"{name}: must be {ID.rule}")
        from focal.api_bodies import BodyInvalid, TurnRequestBody, read_body

        try:
            turn_body = read_body(TurnRequestBody, json_body(body, MAX_TURN_BODY_BYTES))
        except BodyInvalid as exc:
            raise ApiError(400, "bad_request", str(exc)) from None
        from focal.errors import AgentNotFound
        from focal.models.turn import TurnRequest
        from focal.pipeline.runner import LocalRunner

        try:  # the customer: a token signed by the tenant, or asserted by a trusted backend key, else anonymous
            principal = with_customer_token(principal, headers, self.secret_for)
        except CustomerTokenRefused as exc:
            raise ApiError(401, "unauthorized", f"customer token refused: {exc}") from None
        agent_id = params["agent_id"]
        try:
            self.deps.configs.get_agent(principal.tenant_id, agent_id)
        except AgentNotFound:
            raise ApiError(404, "agent_not_found", f"no agent {agent_id} for this tenant") from None
        except Exception:  # noqa: BLE001 - the config store failed: the same structured 500 as a failed turn
            return Reply(500, error_body("execution_failed", "The turn could not be completed.", request_id))
        customer_id = chat_customer(principal, turn_body.customer_id)
        request = TurnRequest(  # tenant from the key, customer from the principal; the body decides neither
            tenant_id=principal.tenant_id, agent_id=agent_id, session_id=params["session_id"],
            customer_id=customer_id, turn_id=turn_body.turn_id or request_id, message=turn_body.message,
        )
        try:
            result = LocalRunner(self.deps).turn(request)
        except Exception:  # noqa: BLE001 - a failed execution: the response mapping's structured 500
            return Reply(500, {"success": False, "execution_path": "fallback", "response": "",
                               "error": {"code": "execution_failed", "message": "The turn could not be completed.",
                                         "request_id": request_id}})
        return turn_reply(result.model_dump(mode="json"), request_id)

    def proxy(self, module: str, method: str, route: str, path: str, params: dict[str, str],
              headers: Mapping[str, str], body: bytes, tenant_id: str, request_id: str) -> Reply:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "bad_request", "body: not valid UTF-8") from None
        if route == APPROVAL_ROUTE:  # depth and size before the handler's own json.loads
            try:
                loads_bounded(text, max_bytes=MAX_APPROVAL_BODY_BYTES, max_depth=MAX_JSON_DEPTH)
            except BodyRejected as exc:
                raise ApiError(exc.status, "payload_too_large" if exc.status == 413 else "bad_request", f"body: {exc}") from None
            except ValueError:
                pass  # not JSON: the handler answers its own 400 (bad_decision)
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
            parsed = json.loads(raw) if len(raw) < MAX_BODY_BYTES else None
        except (ValueError, RecursionError):
            parsed = None
        if status >= 400 and not (isinstance(parsed, dict) and isinstance(parsed.get("error"), dict)):
            # the resolver's own answers (e.g. its 404) in the gateway's error shape
            code = {404: "not_found", 405: "method_not_allowed"}.get(status, "error" if status < 500 else "internal")
            message = str(parsed.get("message", "request refused")) if isinstance(parsed, dict) else "request refused"
            return Reply(status, error_body(code, message, request_id))
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
            parsed["error"].setdefault("request_id", request_id)
            return Reply(status, parsed)
        return Reply(status, None, raw=raw)


def turn_reply(result: dict[str, Any], request_id: str) -> Reply:
    """A TurnResult as the HTTP answer: 404 unknown agent, 409 conflicts, 403 another customer's session, else 200
    (success true or false)."""
    error = result.get("error") or {}
    code = error.get("code")
    if code in AGENT_NOT_FOUND:
        return Reply(404, error_body("agent_not_found", "no such agent for this tenant", request_id))
    status = TURN_ERROR_STATUS.get(code, 200) if code is not None else 200
    if status != 200:
        result = {**result, "error": {**error, "request_id": request_id}}
    headers = {"Retry-After": str(retry_after(error))} if code == "turn_in_progress" else {}
    return Reply(status, result, headers)


def retry_after(error: Mapping[str, Any]) -> int:
    """Whole seconds until a turn in progress may be answered: its claim's remaining lease (at least 1)."""
    seconds = error.get("retry_after_s")
    return seconds if isinstance(seconds, int) and not isinstance(seconds, bool) and seconds >= 1 else 1


def json_body(body: bytes, max_bytes: int) -> Any:
    if not body.strip():
        raise ApiError(400, "bad_request", "body: a JSON object is required")
    try:
        return loads_bounded(body, max_bytes=max_bytes, max_depth=MAX_JSON_DEPTH)
    except json.JSONDecodeError as exc:
        raise ApiError(400, "bad_request", f"body: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except BodyRejected as exc:
        code = "payload_too_large" if exc.status == 413 else "bad_request"
        message = str(exc) if "UTF-8" not in str(exc) else "not valid UTF-8"
        raise ApiError(exc.status, code, f"body: {message}") from None
