"""The OpenAPI 3.1 document of `focal serve` (served at GET /openapi.json): the turn API, then the local routes.

Built from the pydantic models: the request bodies are those the API validates with (focal.api_bodies; the turn
body mirrors API Gateway's TurnRequest model, stack.py), the answer is `TurnResult`. The routes only `focal serve`
has — the playground's page, files and reads, and this document — follow, tagged `local` (focal.web.openapi).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from focal.api_bodies import ApprovalDecision, TurnRequestBody
from focal.ids import ID
from focal.models.turn import TurnResult
from focal.web.openapi import SCHEMAS as LOCAL_SCHEMAS
from focal.web.openapi import Builders, local_paths

PATH_ID = {"type": "string", "minLength": 1, "maxLength": ID.max_length, "pattern": ID.pattern}


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="allow")

    code: str = Field(min_length=1, description="machine-readable, e.g. unauthorized, bad_request, not_found")
    message: str = Field(description="what was wrong, for a person")
    request_id: str | None = Field(default=None, description="the request's id, as in the x-amzn-RequestId header")


class ErrorBody(BaseModel):
    model_config = ConfigDict(extra="allow")

    success: Literal[False] = Field(description="always false for an error")
    error: ErrorDetail = Field(description="what went wrong")


class PublishedAgent(BaseModel):
    success: Literal[True] = Field(description="always true: the agent is published")
    agent_id: str = Field(description="the published agent's id")
    version: Any = Field(description="the agent file's version")
    indexed: dict[str, int] = Field(description="rule and scenario-example documents: embedded (new or changed), unchanged, deleted")


class ApprovalAnswer(BaseModel):
    model_config = ConfigDict(extra="allow")

    success: Literal[True] = Field(description="always true: the decision was recorded")
    approval_id: str = Field(description="the approval request decided")
    approval_state: str = Field(description="the request's state after the decision")
    message: str = Field(description="what happened, for a person")
    response: str | None = Field(default=None, description="the answer of the resumed turn, when the action ran")


ERRORS = {
    "400": "the request is invalid (error.message says which field and why)",
    "401": "no API key, or an unknown or disabled one (or a customer token that does not verify)",
    "403": "the API key lacks the route's scope (chat, publish, approve; admin holds all)",
    "404": "no such resource for this tenant",
    "405": "method not allowed here (or publishing is unavailable on a file-based config store)",
    "408": "the request head or body did not arrive in time",
    "409": "already decided",
    "410": "expired",
    "411": "a chunked body without Content-Length",
    "413": "the body is too large",
    "429": "over the API key's request rate; Retry-After says when to retry",
    "501": "not available with these stores",
}
TURN_ERRORS = {
    "403": "the API key lacks the chat scope, or session_not_yours: the session was opened by another customer, "
           "and nothing of it is read or written (the body is the TurnResult plus error)",
    "404": "no such agent for this tenant",
    "409": "session_conflict (another turn of the session saved first: send it again), turn_id_reused (the turn id "
           "came with another message) or turn_in_progress (the turn id is being answered; Retry-After and "
           "error.retry_after_s say when to ask again, with the same turn id); the body is the TurnResult plus error",
}


def _strip_nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """Optional body fields may be absent but not null (API Gateway's draft-4 model says `type: string`)."""
    for prop in schema.get("properties", {}).values():
        branches = [b for b in prop.pop("anyOf", []) if b.get("type") != "null"]
        if branches:
            prop.update(branches[0])
            prop.pop("default", None)
    return schema


def _components() -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    for model in (TurnRequestBody, TurnResult, ApprovalDecision, ErrorBody, PublishedAgent, ApprovalAnswer, *LOCAL_SCHEMAS):
        doc = model.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(doc.pop("$defs", {}))
        schemas[model.__name__] = doc
    _strip_nullable(schemas["TurnRequestBody"])
    return schemas


def _json(ref: str) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}


def _errors(*codes: str, described: dict[str, str] | None = None) -> dict[str, Any]:
    return {c: {"description": (described or {}).get(c, ERRORS[c]), "content": _json("ErrorBody")} for c in codes}


def _param(name: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": schema or PATH_ID}


def _static_files() -> list[str]:
    from focal.web.static_files import STATIC_FILES

    return sorted(name for name in STATIC_FILES if name != "index.html")  # the page itself is served at /


def openapi_document(server_url: str | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "Focal turn API", "version": "1",
                 "description": "The routes of the API Gateway stage, as served by `focal serve`, then the routes only "
                                "`focal serve` has (tag `local`): the playground and this document."},
        "components": {
            "schemas": _components(),
            "securitySchemes": {
                "ApiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"},
                "Bearer": {"type": "http", "scheme": "bearer", "description": "the same API key as a bearer token"},
            },
        },
        "security": [{"ApiKey": []}, {"Bearer": []}],
        "paths": {
            "/v1/agents/{agent_id}/sessions/{session_id}/turns": {
                "post": {
                    "operationId": "postTurn",
                    "summary": "Run one customer turn through the pipeline",
                    "parameters": [_param("agent_id"), _param("session_id")],
                    "requestBody": {"required": True, "content": _json("TurnRequestBody")},
                    "responses": {
                        "200": {"description": "the turn's result (success false: refused or fallback)",
                                "content": _json("TurnResult")},
                        **_errors("400", "401", "403", "404", "408", "409", "411", "413", "429", described=TURN_ERRORS),
                        "500": {"description": "the execution failed (structured, never the cause)",
                                "content": _json("ErrorBody")},
                    },
                },
            },
            "/v1/agents/{agent_id}": {
                "put": {
                    "operationId": "publishAgent",
                    "summary": "Publish an agent definition (the YAML file as the body) for the caller's tenant",
                    "parameters": [_param("agent_id")],
                    "requestBody": {"required": True, "content": {
                        "application/yaml": {"schema": {"type": "string"}},
                        "text/plain": {"schema": {"type": "string"}},
                    }},
                    "responses": {"200": {"description": "published and indexed", "content": _json("PublishedAgent")},
                                  **_errors("400", "401", "403", "405", "408", "411", "413", "429")},
                },
            },
            "/v1/approvals/{approval_id}": {
                "post": {
                    "operationId": "decideApproval",
                    "summary": "Approve or deny a pending approval request of the caller's tenant",
                    "parameters": [_param("approval_id")],
                    "requestBody": {"required": True, "content": _json("ApprovalDecision")},
                    "responses": {"200": {"description": "decided", "content": _json("ApprovalAnswer")},
                                  **_errors("400", "401", "403", "404", "408", "409", "410", "411", "413", "429")},
                },
            },
        },
    }
    doc["paths"].update(local_paths(_static_files(), Builders(_param, _errors, _json)))
    if server_url:
        doc["servers"] = [{"url": server_url}]
    return doc
