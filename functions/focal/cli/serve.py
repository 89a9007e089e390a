"""`focal serve`: the API Gateway routes on loopback, on uvicorn with a Starlette app, backed by the local runner.

Each request goes through what API Gateway does, in its order: route match (404 / 405), the API-key
authorizer (401) and the key's scope (403), a per-key rate (429), the turn request model (400), then
the integration — the turn through `LocalRunner` (404 unknown agent, 409 session conflict or reused
turn id, else its TurnResult), or the publish and approval handlers called with the proxy event
their Lambdas receive (same JSON, same status codes).

Modules: `serve_api` (keys, the turn, the proxy handlers: no HTTP), `serve_http` (the Starlette app:
limits, body deadline, thread pool, rate, access log), `serve_server` (uvicorn: its protocol with a
head deadline and JSON for what it answers itself), this one (the command).

Errors always have the gateway's shape: `{"success": false, "error": {"code", "message", "request_id"}}`.
No request body, message, customer id or API key is ever logged; the access log is one JSON line per
request: time, request id, method, route template, status, milliseconds, tenant.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

from focal.cli.serve_api import (  # noqa: F401 - the names tests and `focal bench load` import from here
    MAX_BODY_BYTES,
    OPENAPI_ROUTE,
    FocalApi,
    LocalApiKeyStore,
    Reply,
    ServeSettings,
    error_body,
    parse_key_specs,
    proxy_event,
)

MISSING = "focal serve needs uvicorn and starlette: pip install -e '.[serve]' (the Makefile's dev install has them)"


def make_app(*args: Any, **kwargs: Any) -> Any:
    """The Starlette app (`serve_http.make_app`); imported on use, so `focal` runs without the serve extra."""
    from focal.cli.serve_http import make_app as make

    return make(*args, **kwargs)


def serving(*args: Any, **kwargs: Any) -> Any:
    """uvicorn in a background thread, a context manager yielding the base URL (`serve_server.serving`)."""
    from focal.cli.serve_server import serving as serve

    return serve(*args, **kwargs)


def build_api(agents: list[str], db: str, model: str | None, keys: Any,
              secret_for: Callable[[str], str | None] | None = None) -> FocalApi:
    """`keys`: any `focal.auth.KeyLookup` (`principal_for`), e.g. `LocalApiKeyStore` or `SqliteApiKeyStore`.
    `secret_for(tenant)`: the tenant's customer token secret (default FOCAL_SECRET_CUSTOMER_TOKEN_SECRET)."""
    if agents:
        from focal.adapters.file_config import FileConfigStore
        from focal.wiring import local_deps

        deps = local_deps(agents[0], db, model=model)
        if len(agents) > 1:
            deps.configs = FileConfigStore(*agents)
        _warm(deps.configs)
        _warm_model(agents, model)
    else:
        from focal.wiring import deps_from_env

        deps = deps_from_env()
    return FocalApi(deps, keys, secret_for)


class KeyChain:
    """Several key lookups, the first that knows a key wins (command-line keys, then `focal keys`' SQLite)."""

    def __init__(self, *lookups: Any):
        self.lookups = lookups

    def principal_for(self, api_key: str) -> Any:
        for lookup in self.lookups:
            principal = lookup.principal_for(api_key)
            if principal is not None:
                return principal
        return None


def _warm(configs: Any) -> None:
    """Load every agent file once before serving. Otherwise the first concurrent turns all load it at
    once, and CPython 3.11's `ast.parse` (tool entrypoint checks) is not thread-safe: SystemError
    "AST constructor recursion depth mismatch" (seen with 200 simultaneous first requests)."""
    from focal.errors import AgentNotFound

    try:
        configs.get_agent("local", "\x00warm-up")  # a file store loads and caches each file, then finds no such id
    except AgentNotFound:
        pass


def _warm_model(agents: list[str], model: str | None) -> None:
    """Import litellm before serving when a model is configured (FOCAL_MODEL/--model or an agent file's
    `models.model`): seconds of CPU at startup instead of on the first model turn."""
    from focal.adapters.litellm_model import warm_up_if_configured
    from focal.config.loader import load_agent

    named = [model]
    for path in agents:
        try:
            named.append(load_agent(path).models.model)  # a folder means its agent.yaml
        except Exception:  # noqa: BLE001 - a broken file is reported by its first turn, as before
            continue
    warm_up_if_configured(*named)


def add_parser(sub: Any) -> None:
    d = ServeSettings()
    s = sub.add_parser("serve", help="the API Gateway routes on loopback (uvicorn), backed by the local runner",
                       description="the API Gateway routes on loopback (uvicorn), backed by the local runner")
    s.add_argument("--agent", action="append", default=[],
                   help="agent YAML file (or folder); repeatable. Without it the FOCAL_* environment chooses the stores")
    s.add_argument("--db", default=".focal/focal.db", help="the local SQLite file (sessions, turns, approvals, keys)")
    s.add_argument("--model", default=os.environ.get("FOCAL_MODEL"),
                   help="litellm model name (default: FOCAL_MODEL, else the agent file's models.model, else offline)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on")
    s.add_argument("--port", type=int, default=8080, help="port to listen on")
    s.add_argument("--api-key", action="append", default=[], metavar="KEY=TENANT[:SCOPES]",
                   help="an accepted API key, its tenant and optionally its scopes (chat,publish,approve,admin; "
                        "default admin); repeatable (also FOCAL_API_KEYS=K1=T1,K2=T2:chat)")
    s.add_argument("--tenant", default=os.environ.get("FOCAL_TENANT", "local"),
                   help="tenant of the key generated when none is given")
    s.add_argument("--rate-per-key", type=float, default=d.rate_per_key,
                   help=f"requests per second per API key (token bucket, burst --rate-burst); 0: no limit (default {d.rate_per_key:g})")
    s.add_argument("--rate-burst", type=int, default=d.rate_burst, help="requests a key may send at once before --rate-per-key applies")
    s.add_argument("--threads", type=int, default=d.threads, help=f"turns run at once (default {d.threads})")
    s.add_argument("--quiet", action="store_true", help="no access log")
    s.set_defaults(func=cmd_serve)


def _print_access(record: dict[str, Any]) -> None:
    sys.stderr.write(json.dumps(record) + "\n")
    sys.stderr.flush()


def cmd_serve(args: Any) -> int:
    try:
        import uvicorn

        from focal.cli.serve_server import uvicorn_config
    except ImportError:
        print(MISSING, file=sys.stderr)
        return 2

    try:
        keys = LocalApiKeyStore({**parse_key_specs(os.environ.get("FOCAL_API_KEYS")), **parse_key_specs(args.api_key)})
    except ValueError as exc:
        print(f"focal serve: {exc}", file=sys.stderr)
        return 2
    lookups: list[Any] = [keys]
    stored = 0
    if args.db != ":memory:":
        os.makedirs(os.path.dirname(os.path.abspath(args.db)), exist_ok=True)
        from focal.adapters.sqlite_api_keys import SqliteApiKeyStore

        sqlite_keys = SqliteApiKeyStore(args.db)  # keys made with `focal keys create --db` (same file)
        stored = sum(1 for record in sqlite_keys.list() if not record.disabled)
        lookups.append(sqlite_keys)
    generated = keys.issue(args.tenant) if not len(keys) and not stored else None
    api = build_api(args.agent, args.db, args.model, KeyChain(*lookups) if len(lookups) > 1 else keys)
    settings = ServeSettings(rate_per_key=args.rate_per_key, rate_burst=args.rate_burst, threads=max(1, args.threads))
    config = uvicorn_config(api, args.host, args.port, settings, None if args.quiet else _print_access, uvicorn_logs=True)
    url = f"http://{args.host}:{args.port}"
    print(f"focal serve: {url}  (OpenAPI: {url}{OPENAPI_ROUTE}; Ctrl-C to stop)", file=sys.stderr)
    if generated:
        print(f"API key for tenant {args.tenant!r} (shown once): {generated}", file=sys.stderr)
    uvicorn.Server(config).run()
    return 0
