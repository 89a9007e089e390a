"""Every finished turn emits a `Turns` metric with the intent label as a dimension (EMF)."""

from __future__ import annotations

import json

from aws_lambda_powertools import Metrics

from handlers._metrics import NO_INTENT, record_turn


def emitted(result: dict) -> dict:
    metrics = Metrics(namespace="FocalTest", service="focal")
    record_turn(metrics, {"result": result, "request": {"message": "my card is 4111 1111 1111 1111"}})
    blob = metrics.serialize_metric_set()
    metrics.clear_metrics()
    return blob


def test_the_intent_label_and_path_are_dimensions():
    blob = emitted({"intent": {"label": "refund_request"}, "execution_path": "respond", "model_calls": 1})
    assert blob["intent_label"] == "refund_request" and blob["execution_path"] == "respond"
    assert blob["Turns"] == [1.0] or blob["Turns"] == 1.0
    dims = blob["_aws"]["CloudWatchMetrics"][0]["Dimensions"][0]
    assert {"intent_label", "execution_path"} <= set(dims)


def test_a_turn_without_intent_is_labelled_and_no_text_is_emitted():
    blob = emitted({"intent": {"label": None}, "execution_path": "clarify"})
    assert blob["intent_label"] == NO_INTENT
    assert "4111" not in json.dumps(blob)
