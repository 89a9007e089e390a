"""Per-turn metrics (Powertools Metrics, CloudWatch EMF): one `Turns` count per finished turn,
with the intent label and execution path as dimensions, and the turn's `ModelCalls`, `ModelCostUSD`
and enforcement `Violations` (the tenant dashboard, infra/focal_infra/operations.py). Labels, paths
and numbers only, never text."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics import MetricUnit

NO_INTENT = "none"


def record_turn(metrics: Metrics, state: dict[str, Any]) -> None:
    result = state.get("result") or {}
    metrics.add_dimension(name="intent_label", value=str((result.get("intent") or {}).get("label") or NO_INTENT))
    metrics.add_dimension(name="execution_path", value=str(result.get("execution_path") or "unknown"))
    metrics.add_metric(name="Turns", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name="ModelCalls", unit=MetricUnit.Count, value=int(result.get("model_calls") or 0))
    metrics.add_metric(name="ModelCostUSD", unit=MetricUnit.NoUnit, value=float(result.get("cost_usd") or 0.0))
    violations = (result.get("enforcement") or {}).get("violations") or []
    metrics.add_metric(name="Violations", unit=MetricUnit.Count, value=len(violations))
