"""What every stage handler does: parse the event, call the stage, serialise. Nothing else.
(The fallback's handler is in handlers/fallback.py: the stages' functions do not import its module.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger

from focal.pipeline.stage_io import run_stage
from focal.prime import prime_quietly
from focal.wiring import deps_from_env

logger = Logger(service="focal")

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def stage_handler(name: str) -> LambdaHandler:
    prime_quietly(name)  # SnapStart's snapshot init (or FOCAL_PRIME=1): ports, stage, models, litellm now
    @logger.inject_lambda_context(log_event=False)  # events carry customer text: never logged
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        logger.append_keys(stage=name, tenant_id=(event.get("request") or {}).get("tenant_id"))
        return run_stage(name, event, deps_from_env())

    return handler
