"""The turn route's integration responses, rendered for real (airspeed, tests/infra/vtl.py): success,
an unknown agent, a session conflict, a fallback turn, FAILED and TIMED_OUT executions, StartSyncExecution
throttling, an invalid id and other 4xx/5xx. Each answer's status and body, as API Gateway would send them.
"""

from __future__ import annotations

import json

import pytest

from infra_helpers import method as api_method
from vtl import render


@pytest.fixture(scope="module")
def responses(resources) -> dict[str, dict]:
    integration = api_method(resources, "POST", "turns")["Properties"]["Integration"]
    return {r["StatusCode"]: r for r in integration["IntegrationResponses"]}


def answer(responses, integration_status: int, backend: dict) -> tuple[int, dict]:
    """(HTTP status, body) for a StartSyncExecution answer with this HTTP status and JSON body."""
    import re

    chosen = None
    for response in responses.values():
        pattern = response.get("SelectionPattern")
        if pattern and re.fullmatch(pattern, str(integration_status)):
            chosen = response
    chosen = chosen or responses["200"]  # the default response (no selection pattern)
    text, override = render(chosen["ResponseTemplates"]["application/json"], body=backend, request_id="req-9")
    return override or int(chosen["StatusCode"]), json.loads(text)


def result(**overrides) -> dict:
    base = {"success": True, "turn_id": "t1", "session_id": "s1", "response": "Hello!", "execution_path": "respond",
            "error": None, "model_calls": 0, "cost_usd": 0.0}
    return {**base, **overrides}


def succeeded(turn_result: dict) -> dict:
    return {"status": "SUCCEEDED", "output": json.dumps(turn_result), "executionArn": "arn:x"}


def test_a_successful_turn_is_200_with_the_turn_result_verbatim(responses):
    turn = result(response='He said "hi" / ok')
    assert answer(responses, 200, succeeded(turn)) == (200, turn)


def test_a_fallback_turn_is_still_200_with_its_structured_result(responses):
    turn = result(success=False, execution_path="fallback", response="Sorry, something went wrong.",
                  error={"code": "stage_failed:ValueError", "message": "The turn could not be completed."})
    assert answer(responses, 200, succeeded(turn)) == (200, turn)


@pytest.mark.parametrize("code", ["agent_not_found", "stage_failed:AgentNotFound"])
def test_an_unknown_agent_is_404(responses, code):
    status, body = answer(responses, 200, succeeded(result(success=False, error={"code": code, "message": "x"})))
    assert status == 404
    assert body["error"]["code"] == "agent_not_found" and body["error"]["request_id"] == "req-9"


@pytest.mark.parametrize("code", ["session_conflict", "turn_id_reused", "turn_in_progress"])
def test_conflicts_are_409_with_the_turn_result(responses, code):
    turn = result(success=False, error={"code": code, "message": "send it again"})
    assert answer(responses, 200, succeeded(turn)) == (409, turn)


@pytest.mark.parametrize("status,code", [("FAILED", "execution_failed"), ("TIMED_OUT", "execution_timed_out")])
def test_failed_and_timed_out_executions_are_a_structured_500_without_the_cause(responses, status, code):
    backend = {"status": status, "error": "States.Timeout", "cause": "secret stack trace"}
    http, body = answer(responses, 200, backend)
    assert http == 500
    assert body["success"] is False and body["execution_path"] == "fallback"
    assert body["error"]["code"] == code and body["error"]["request_id"] == "req-9"
    assert "secret" not in json.dumps(body)


@pytest.mark.parametrize("error_type", ["ThrottlingException", "com.amazonaws.swf.service.v2.model#ThrottlingException",
                                        "ExecutionLimitExceeded"])
def test_throttling_is_429(responses, error_type):
    status, body = answer(responses, 400, {"__type": error_type, "message": "Rate exceeded"})
    assert status == 429 and body["error"]["code"] == "throttled"


def test_an_invalid_id_refused_by_step_functions_is_400_invalid_id(responses):
    status, body = answer(responses, 400, {"__type": "InvalidName", "message": "Invalid Name: 'invalid id'"})
    assert status == 400 and body["error"]["code"] == "invalid_id"


@pytest.mark.parametrize("backend", [{"__type": "InvalidExecutionInput", "message": "x"}, {"message": "no type"}, {}])
def test_other_4xx_are_400_bad_request(responses, backend):
    status, body = answer(responses, 400, backend)
    assert status == 400 and body["error"]["code"] == "bad_request"
    assert "message" not in backend or backend["message"] not in json.dumps(body)


def test_5xx_from_step_functions_is_a_structured_500(responses):
    status, body = answer(responses, 500, {"__type": "InternalServerError", "message": "boom"})
    assert status == 500 and body["error"]["code"] == "unavailable" and "boom" not in json.dumps(body)


def test_the_turn_method_declares_every_status_it_can_answer(resources):
    from focal_infra.api import TURN_STATUSES

    method = api_method(resources, "POST", "turns")["Properties"]
    assert {r["StatusCode"] for r in method["MethodResponses"]} == set(TURN_STATUSES)
    assert method["RequestParameters"]["method.request.header.Idempotency-Key"] is False
