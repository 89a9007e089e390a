"""Approval workflow, first task (`lambda:invoke.waitForTaskToken`): keep the task token on the request."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger

from focal.pipeline.approval_workflow import hold
from focal.wiring import deps_from_env

logger = Logger(service="focal")


@logger.inject_lambda_context(log_event=False)  # the event holds the task token: not logged
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    result = hold(deps_from_env(), event["tenant_id"], event["approval_id"], event["task_token"])
    logger.info("approval workflow waiting", extra=result)
    return result
