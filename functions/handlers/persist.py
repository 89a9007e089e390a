"""Lambda entry point of the persist stage; every finished turn also emits its metrics."""

import os
from typing import Any

from aws_lambda_powertools import Metrics

from handlers._metrics import record_turn
from handlers._stage import stage_handler

# The stack sets Focal/<tenant> (one dashboard per tenant environment of an account).
metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or "Focal", service="focal")
_persist = stage_handler("persist")


@metrics.log_metrics
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    state = _persist(event, context)
    record_turn(metrics, state)
    return state
