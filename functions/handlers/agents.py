"""PUT /v1/agents/{agent_id}: publish an agent definition (the YAML file as the body) for the
caller's tenant — validated, its rules and scenario examples indexed, then stored. The tenant
comes from the authorizer's context only, never from the request."""

from __future__ import annotations

import os
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response

from focal.config.loader import MAX_AGENT_BYTES, AgentConfigInvalid
from focal.errors import AgentTooLarge
from focal.retrieval.publish import AgentIdMismatch, publish_agent
from focal.settings import get_settings
from focal.wiring import deps_from_env
from handlers._api import caller_tenant, path_param
from handlers._api import error as _error

MAX_BODY_BYTES = MAX_AGENT_BYTES

app = APIGatewayRestResolver()
logger = Logger(service="focal")


@app.put("/v1/agents/<agent_id>")
def put_agent(agent_id: str) -> Response | dict[str, Any]:
    tenant_id = caller_tenant(app)
    if isinstance(tenant_id, Response):
        return tenant_id
    agent_id = path_param(app, "agent_id", agent_id)  # checked whole by publish_agent (400 invalid_agent_id)
    try:
        body = app.current_event.decoded_body or ""
        size = len(body.encode("utf-8"))
    except UnicodeError:  # a base64 body that is not UTF-8, or a lone surrogate: a 400, not an unhandled error
        return _error(400, "bad_body", "the agent file must be UTF-8 text")
    if not body.strip():
        return _error(400, "empty_body", "send the agent YAML file as the request body")
    if size > MAX_BODY_BYTES:
        return _error(413, "body_too_large", f"an agent file may have at most {MAX_BODY_BYTES} bytes")
    deps = deps_from_env()
    # Tool files are checked where turns will load them from: the code asset's agents/<agent_id>/.
    tools_dir = os.path.join(get_settings().agents_root, agent_id)
    try:
        published = publish_agent(deps.configs, deps.rule_index, deps.embedder, tenant_id, body, agent_id,  # type: ignore[arg-type]
                                  base_dir=tools_dir)
    except AgentConfigInvalid as exc:
        return _error(400, "invalid_agent", f"{len(exc.problems)} problem(s) in the agent file",
                      problems=[str(p) for p in exc.problems])
    except AgentIdMismatch as exc:
        return _error(400, exc.code, str(exc))
    except AgentTooLarge as exc:  # over DynamoDB's item limit: refused before indexing, nothing written
        return _error(413, exc.code, str(exc))
    logger.info("agent published", extra={"agent_id": published.agent.id, "version": published.agent.version,
                                          "embedded": published.indexed.embedded, "deleted": published.indexed.deleted})
    report = published.indexed
    return {"success": True, "agent_id": published.agent.id, "version": published.agent.version,
            "indexed": {"embedded": report.embedded, "unchanged": report.unchanged, "deleted": report.deleted}}


@logger.inject_lambda_context(log_event=False)  # the body is the customer's configuration: not logged
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
