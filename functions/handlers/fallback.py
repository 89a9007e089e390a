"""Lambda entry point of the Catch path: structured answer, turn recorded."""

from typing import Any

from focal.stages import fallback
from focal.wiring import deps_from_env
from handlers._stage import logger


@logger.inject_lambda_context(log_event=False)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    logger.warning("turn caught into the fallback", extra={"error": (event.get("caught") or {}).get("Error")})
    return fallback.handle(event, deps_from_env())
