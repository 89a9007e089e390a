"""The synthesized definition's control flow, executed by moto with stand-in stage handlers.

Stand-ins only record their stage name and set `control.next` as the test dictates; everything
else (task order, the sensor→persist early exit, the bounded enforce→generate loop, Catch →
fallback, the Succeed output) is the CDK-generated definition running in moto's interpreter.
"""

from __future__ import annotations

import boto3
import pytest

from focal.turn.definition import FALLBACK_HANDLER, STAGES
from harness import REGION

STAGE_OF_HANDLER = {s.handler: s.name for s in STAGES}
FULL_PATH = [s.name for s in STAGES]


def stand_in(stage: str):
    def handler(event: dict, context) -> dict:
        state = dict(event)
        state["trail"] = [*state.get("trail", []), stage]
        script = state["request"]["script"]
        state["control"] = {"next": script.get(stage, [None]).pop(0) if script.get(stage) else None}
        if stage in script.get("raise", []):
            raise RuntimeError(f"{stage} failed on purpose")
        if stage == "persist":
            state["result"] = {"execution_path": "respond", "trail": state["trail"]}
        return state

    return handler


def fallback(event: dict, context) -> dict:
    state = dict(event)
    caught = state["caught"]
    state["result"] = {
        "execution_path": "fallback",
        "trail": [*state.get("trail", []), "fallback"],
        "error": {"code": caught["Error"], "message": caught["Cause"]},
    }
    return state


@pytest.fixture
def pipeline(moto_pipeline):
    harness = moto_pipeline
    for state_name, handler_path in harness.task_handlers().items():
        harness.override(handler_path, fallback if handler_path == FALLBACK_HANDLER else stand_in(state_name))
    harness.create_functions_and_state_machine()
    return harness


def run(pipeline, **script):
    result = pipeline.run({"request": {"tenant_id": "acme", "session_id": "s1", "script": script}})
    assert pipeline.unknown_functions == []
    return result


def test_tasks_are_the_stages_with_their_template_handlers(pipeline):
    tasks = pipeline.task_handlers()
    assert tasks == {**{s.name: s.handler for s in STAGES}, "fallback": FALLBACK_HANDLER}


def test_straight_path_runs_every_stage_once_in_order(pipeline):
    out = run(pipeline)
    assert out["status"] == "SUCCEEDED"
    # The Succeed state outputs $.result only: that is the API body.
    assert out["output"] == {"execution_path": "respond", "trail": FULL_PATH}
    assert [STAGE_OF_HANDLER[i.handler] for i in pipeline.invocations] == FULL_PATH


def test_sensor_can_exit_early_to_persist(pipeline):
    out = run(pipeline, sensor=["persist"])
    assert out["output"]["trail"] == ["sensor", "persist"]


def test_enforce_loops_back_to_generate_as_long_as_it_asks(pipeline):
    out = run(pipeline, enforce=["generate", "generate"])
    assert out["output"]["trail"] == FULL_PATH[:5] + ["enforce", "generate", "enforce", "generate", "enforce", "persist"]


@pytest.mark.parametrize("stage,target", [("retrieve", "persist"), ("enforce", "tools"), ("sensor", "nowhere")])
def test_undeclared_jumps_fall_through_to_the_next_stage(pipeline, stage, target):
    out = run(pipeline, **{stage: [target]})
    assert out["output"]["trail"] == FULL_PATH


def test_non_string_control_falls_through(pipeline):
    def sensor(event, context):
        state = stand_in("sensor")(event, context)
        state["control"] = {"next": 7}
        return state

    pipeline.override("handlers.sensor.handler", sensor)
    assert run(pipeline)["output"]["trail"] == FULL_PATH


def test_missing_control_falls_through(pipeline):
    def sensor(event, context):
        state = stand_in("sensor")(event, context)
        del state["control"]
        return state

    pipeline.override("handlers.sensor.handler", sensor)
    assert run(pipeline)["output"]["trail"] == FULL_PATH


@pytest.mark.parametrize("failing", [s.name for s in STAGES])
def test_a_failing_stage_is_caught_into_the_fallback(pipeline, failing):
    out = run(pipeline, **{"raise": [failing]})
    assert out["status"] == "SUCCEEDED"
    result = out["output"]
    assert result["execution_path"] == "fallback"
    # The fallback receives the state *as it entered* the failed stage, plus $.caught.
    before = FULL_PATH[: FULL_PATH.index(failing)]
    assert result["trail"] == before + ["fallback"]
    assert result["error"]["code"] == "RuntimeError"
    assert f"{failing} failed on purpose" in result["error"]["message"]


def test_a_failing_fallback_fails_the_execution(pipeline):
    def broken(event, context):
        raise ValueError("fallback is down")

    pipeline.override(FALLBACK_HANDLER, broken)
    out = run(pipeline, **{"raise": ["route"]})
    assert out["status"] == "FAILED"
    assert out["output"] is None


def test_functions_exist_in_moto_under_template_names(pipeline):
    names = {f["FunctionName"]: f["Handler"] for f in boto3.client("lambda", region_name=REGION).list_functions()["Functions"]}
    assert {name: fn["handler"] for name, fn in pipeline.by_name.items()} == names


def throttled(times: int, stage: str):
    """A stand-in that fails `times` times with the error name Lambda gives a throttled invoke.

    moto's interpreter names a failure after the payload's errorType, so this exercises the
    definition's Retry matching and counting (the throttle itself is simulated)."""
    calls = {"n": 0}

    def handler(event, context):
        calls["n"] += 1
        if calls["n"] <= times:
            raise type("TooManyRequestsException", (Exception,), {})("Rate exceeded")
        return stand_in(stage)(event, context)

    return handler, calls


def _name_errors_like_lambda(pipeline):
    original = pipeline.invoke

    def invoke(function_name, body, response_headers):
        payload = original(function_name, body, response_headers)
        if response_headers.get("x-amz-function-error"):
            import json

            data = json.loads(payload)
            if data["errorType"] == "TooManyRequestsException":
                data["errorType"] = "Lambda.TooManyRequestsException"
            payload = json.dumps(data).encode()
        return payload

    pipeline.invoke = invoke


def test_a_throttled_stage_is_retried(pipeline):
    handler, calls = throttled(1, "route")
    pipeline.override("handlers.route.handler", handler)
    _name_errors_like_lambda(pipeline)
    out = run(pipeline)
    assert out["output"]["trail"] == FULL_PATH
    assert calls["n"] == 2


def test_retries_are_bounded_then_the_fallback_answers(pipeline):
    handler, calls = throttled(99, "route")
    pipeline.override("handlers.route.handler", handler)
    _name_errors_like_lambda(pipeline)
    out = run(pipeline)
    assert calls["n"] == 3  # the attempt + MaxAttempts (2) retries
    assert out["output"]["execution_path"] == "fallback"
    assert out["output"]["error"]["code"] == "Lambda.TooManyRequestsException"
