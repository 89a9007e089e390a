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


def test_every_turn_integration_response_is_structured(resources):
    responses = api_method(resources, "POST", "turns")["Properties"]["Integration"]["IntegrationResponses"]
    assert {r["StatusCode"] for r in responses} == {"200", "400", "500"}
    for response in responses:
        template = response["ResponseTemplates"]["application/json"]
        if response["StatusCode"] == "200":
            # A non-SUCCEEDED execution (the fallback itself failed, a timeout) answers 500 with this body.
            (failure,) = [line for line in template.splitlines() if line.startswith("{")]
            assert_structured(render(failure))
            assert render(failure)["execution_path"] == "fallback"
        else:
            assert response["SelectionPattern"] == rf"{response['StatusCode'][0]}\d{{2}}"
            assert_structured(render(template))


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
