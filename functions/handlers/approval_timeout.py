"""Approval workflow, on `States.Timeout`: no answer in time, the request is marked expired."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger

from focal.pipeline.approval_workflow import on_timeout
from focal.wiring import deps_from_env

logger = Logger(service="focal")


@logger.inject_lambda_context(log_event=False)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    result = on_timeout(deps_from_env(), event["tenant_id"], event["approval_id"])
    logger.info("approval workflow timed out", extra=result)
    return result
