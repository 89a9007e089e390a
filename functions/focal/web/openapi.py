"""The routes `focal serve` adds beside the turn API, in its OpenAPI document (focal.cli.openapi): the playground's
page, its static files and its read endpoints, and the document itself.

They are served locally only — API Gateway deploys none of them — so each carries the tag `local` (the
playground's also `playground`). The page, its files and the document need no key (`security: []`); every
read needs a key of the tenant it reads, with the scope the route names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, Field

PLAYGROUND_API = "/playground/api"
STATIC_ROUTE = "/playground/static/{name}"
LOCAL_TAGS = ["local"]
PLAYGROUND_TAGS = ["local", "playground"]
READ_SCOPE = "needs the 'admin' scope, or 'chat' on a trusted backend key (one that may speak for any customer)"
READ_ERRORS = ("400", "401", "403", "404", "429", "501")


class PlaygroundList(BaseModel):
    success: Literal[True] = Field(description="always true: the read succeeded")
    items: list[dict[str, Any]] = Field(description="the records read, for the caller's tenant only (see the route)")


class PlaygroundObject(BaseModel):
    success: Literal[True] = Field(description="always true: the read succeeded")
    items: dict[str, Any] = Field(description="the one record read, for the caller's tenant only (see the route)")


SCHEMAS = (PlaygroundList, PlaygroundObject)
# (path under PLAYGROUND_API, operation id, summary, answer schema, path parameters)
READS: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    ("/agents", "listPlaygroundAgents",
     "The agents this server reads from files: id, name, greeting, scenario and tool ids", "PlaygroundList", ()),
    ("/agents/{agent_id}/sessions", "listPlaygroundSessions",
     "The agent's recent sessions: session_id, turns, started_at, last_at, customer_id", "PlaygroundList", ("agent_id",)),
    ("/agents/{agent_id}/sessions/{session_id}/turns", "listPlaygroundTurns",
     "Each turn of the session as the playground's trace: stages, intent, commands, flow before and after, rules, "
     "tool calls with guard verdicts, enforcement, model calls, what the customer did not get", "PlaygroundList",
     ("agent_id", "session_id")),
    ("/agents/{agent_id}/sessions/{session_id}/test", "getPlaygroundTest",
     "The session as a one-conversation tests.yaml: yaml, file_name, turns", "PlaygroundObject", ("agent_id", "session_id")),
    ("/agents/{agent_id}/sessions/{session_id}/flow", "getPlaygroundFlow",
     "Where the session stands now: its flow, stack, slots and variables (personal data masked)", "PlaygroundObject",
     ("agent_id", "session_id")),
    ("/approvals", "listPlaygroundApprovals",
     "The tenant's pending approval requests with the exact arguments they would run (needs the 'approve' scope)",
     "PlaygroundList", ()),
)
PLAYGROUND_ERRORS = {
    "403": "the key lacks the scope this read needs",
    "404": "no such agent (agent_not_found) or no turns recorded in the session",
    "501": "listing needs the local SQLite stores (focal serve --agent)",
}


class Builders(NamedTuple):
    """The turn API document's own builders (focal.cli.openapi), so that both parts read alike."""

    param: Callable[..., dict[str, Any]]  # (name, schema=None) → a path parameter
    errors: Callable[..., dict[str, Any]]  # (*codes, described=None) → error answers
    json: Callable[[str], dict[str, Any]]  # schema name → a JSON body


def _text(description: str, *media: str) -> dict[str, Any]:
    return {"description": description, "content": {m: {"schema": {"type": "string"}} for m in media}}


def _read(build: Builders, operation_id: str, summary: str, schema: str, params: tuple[str, ...]) -> dict[str, Any]:
    scope = "" if operation_id == "listPlaygroundApprovals" else f" ({READ_SCOPE})"
    return {"get": {
        "operationId": operation_id, "tags": PLAYGROUND_TAGS, "summary": summary + scope,
        "parameters": [build.param(name) for name in params],
        "responses": {"200": {"description": "the records read", "content": build.json(schema)},
                      **build.errors(*READ_ERRORS, described=PLAYGROUND_ERRORS)},
    }}


def local_paths(static_files: list[str], build: Builders) -> dict[str, Any]:
    """The OpenAPI paths of the local routes (`static_files`: the names the static route serves)."""
    page = {"get": {"operationId": "getPlayground", "tags": PLAYGROUND_TAGS, "security": [],
                    "summary": "The playground page (HTML): chat with an agent and read each turn's trace",
                    "responses": {"200": _text("the page", "text/html")}}}
    static = {"get": {"operationId": "getPlaygroundFile", "tags": PLAYGROUND_TAGS, "security": [],
                      "summary": "One of the playground page's script and style files",
                      "parameters": [build.param("name", {"type": "string", "enum": static_files})],
                      "responses": {"200": _text("the file", "text/javascript", "text/css"),
                                    **build.errors("404", described={"404": "no such playground file"})}}}
    document = {"get": {"operationId": "getOpenApi", "tags": LOCAL_TAGS, "security": [],
                        "summary": "This OpenAPI document",
                        "responses": {"200": {"description": "the document",
                                              "content": {"application/json": {"schema": {"type": "object"}}}}}}}
    paths = {"/": page, STATIC_ROUTE: static, "/openapi.json": document}
    for path, operation_id, summary, schema, params in READS:
        paths[PLAYGROUND_API + path] = _read(build, operation_id, summary, schema, params)
    return paths
