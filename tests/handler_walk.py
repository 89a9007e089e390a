"""One turn through the stage Lambda handlers as the state machine runs them (a Catch → the fallback
handler), for the tests that check what the handlers write and log (tests/functional/test_logs.py,
tests/security/test_pii_dynamodb.py)."""

from __future__ import annotations

import importlib
import json
from typing import Any

from focal.turn.definition import STAGE_NAMES, next_stage


class LambdaContext:
    function_name, memory_limit_in_mb = "focal-stage", 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:focal-stage"

    def __init__(self, request_id: str = "req-test") -> None:
        self.aws_request_id = request_id


def run_turn(request: dict[str, Any], failing: str | None = None, context: Any = None) -> dict[str, Any]:
    """The turn's result; `failing` names a stage that raises (its Catch runs the fallback handler)."""
    from handlers.fallback import handler as fallback_handler

    context = context or LambdaContext()
    event: dict[str, Any] = {"request": request}
    stage: str | None = STAGE_NAMES[0]
    while stage is not None:
        try:
            if stage == failing:
                raise RuntimeError("stage down")
            event = importlib.import_module(f"handlers.{stage}").handler(event, context)
        except Exception as exc:  # noqa: BLE001 - the state machine's Catch
            caught = {"Error": type(exc).__name__, "Cause": json.dumps({"errorType": type(exc).__name__})}
            return fallback_handler({**event, "caught": caught}, context)["result"]
        stage = next_stage(stage, (event.get("control") or {}).get("next"))
    return event["result"]
