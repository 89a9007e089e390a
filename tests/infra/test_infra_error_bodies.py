"""The API answers with a structured body, never a bare 5xx: every error body the template can
produce (the turn integration's responses and the gateway responses) is a JSON document with
`success: false` and an `error.code`, and none carries the failure's cause."""

from __future__ import annotations

import json
import re

from infra_helpers import method as api_method
from infra_helpers import of_type

# What API Gateway substitutes, for the variables the templates use.
VTL_VALUES = {
    "$util.escapeJavaScript($status).toLowerCase()": "failed",
    "$context.requestId": "req-1",
    "$context.error.messageString": '"Unauthorized"',  # API Gateway renders it as a quoted JSON string
}


def render(text: str) -> dict:
    for variable, value in VTL_VALUES.items():
        text = text.replace(variable, value)
    assert "$" not in text, text
    return json.loads(text)


def assert_structured(body: dict) -> None:
    assert body["success"] is False
    assert re.fullmatch(r"[a-z_]+", body["error"]["code"]), body
    assert body["error"]["message"]
    assert "cause" not in json.dumps(body).lower()


BACKENDS = [  # what StartSyncExecution may answer, for every integration response
    {"status": "FAILED", "error": "x", "cause": "the cause"},
    {"status": "TIMED_OUT", "cause": "the cause"},
    {"status": "SUCCEEDED", "output": json.dumps({"success": False, "error": {"code": "agent_not_found"}})},
    {"__type": "ThrottlingException", "message": "the cause"},
    {"__type": "InvalidName", "message": "the cause"},
    {"__type": "ValidationException", "message": "the cause"},
    {},
]


def test_every_turn_integration_error_is_structured(resources):
    """Rendered for real (airspeed): every non-200 answer of every integration response is structured."""
    from vtl import render as render_vtl

    responses = api_method(resources, "POST", "turns")["Properties"]["Integration"]["IntegrationResponses"]
    assert {r["StatusCode"] for r in responses} == {"200", "400", "500"}
    errors = 0
    for response in responses:
        if response["StatusCode"] != "200":
            assert response["SelectionPattern"] == rf"{response['StatusCode'][0]}\d{{2}}"
        for backend in BACKENDS:
            text, status = render_vtl(response["ResponseTemplates"]["application/json"], body=backend)
            if (status or int(response["StatusCode"])) >= 400:
                assert_structured(json.loads(text))
                errors += 1
    assert errors >= len(BACKENDS) * 2


def test_every_gateway_response_is_structured(resources):
    gateway = of_type(resources, "AWS::ApiGateway::GatewayResponse")
    assert gateway
    for response in gateway.values():
        assert_structured(render(response["Properties"]["ResponseTemplates"]["application/json"]))


def test_default_4xx_and_5xx_gateway_responses_are_structured_too(resources):
    types = {r["Properties"]["ResponseType"] for r in of_type(resources, "AWS::ApiGateway::GatewayResponse").values()}
    assert {"DEFAULT_5XX", "DEFAULT_4XX"} <= types


def test_state_machines_retry_only_lambda_service_errors(resources):
    """One owner per failure type: the state machines retry the Lambda service's own errors; DynamoDB
    throttling is retried inside the functions by botocore (focal.adapters.dynamodb_store), and a
    handler's error goes to the Catch, never back into the task."""
    from focal_infra.state_machine import LAMBDA_SERVICE_ERRORS
    from infra_helpers import definition_with_placeholders

    machines = of_type(resources, "AWS::StepFunctions::StateMachine")
    retries = [retry for machine in machines.values()
               for state in definition_with_placeholders(machine["Properties"]["DefinitionString"])["States"].values()
               for retry in state.get("Retry", [])]
    assert retries
    for retry in retries:
        assert set(retry["ErrorEquals"]) <= set(LAMBDA_SERVICE_ERRORS), retry
        assert retry["MaxAttempts"] <= 3
