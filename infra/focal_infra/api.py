"""The tenant's REST API: the turn route (StartSyncExecution), publishing, approvals, one authorizer.

API Gateway logging (access logs and ERROR execution logs) needs the account's API Gateway CloudWatch
role, one per account and region, shared by every stack there. `-c createApiGatewayLogsRole=true`
makes this stack create it (`make deploy` checks the account and passes the flag when none is set);
the role is retained on destroy, since other stacks' stages may rely on it.
"""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from focal.ids import CUSTOMER_ID
from focal_infra import api_mapping

APPROVAL_PATH = ("v1", "approvals", "{approval_id}")
AGENT_PATH = ("v1", "agents", "{agent_id}")
TURN_PATH = ("v1", "agents", "{agent_id}", "sessions", "{session_id}", "turns")
STAGE_NAME = "live"
THROTTLE_RATE, THROTTLE_BURST = 50, 100
TURN_STATUSES = ("200", "400", "404", "409", "429", "500")


def _json_body(code: str) -> dict[str, str]:
    return {"application/json": f'{{"success": false, "error": {{"code": "{code}", '
                                f'"message": $context.error.messageString}}}}'}


def build_api(scope: Construct, *, tenant: str, state_machine: sfn.IStateMachine, authorizer_function: lambda_.IFunction,
              publish_function: lambda_.IFunction, approvals_function: lambda_.IFunction,
              access_logs: logs.ILogGroup, create_logs_role: bool) -> apigw.RestApi:
    api = apigw.RestApi(
        scope,
        "Api",
        rest_api_name=f"focal-{tenant}",
        description=f"Focal turn API ({tenant})",
        endpoint_types=[apigw.EndpointType.REGIONAL],
        cloud_watch_role=create_logs_role,
        cloud_watch_role_removal_policy=RemovalPolicy.RETAIN if create_logs_role else None,
        deploy_options=apigw.StageOptions(
            stage_name=STAGE_NAME,
            tracing_enabled=True,
            metrics_enabled=True,
            throttling_rate_limit=THROTTLE_RATE,
            throttling_burst_limit=THROTTLE_BURST,
            # Who called what, with which status: no bodies (customer text stays out of logs).
            access_log_destination=apigw.LogGroupLogDestination(access_logs),
            access_log_format=apigw.AccessLogFormat.json_with_standard_fields(
                caller=False, http_method=True, ip=True, protocol=True, request_time=True,
                resource_path=True, response_length=True, status=True, user=False),
            logging_level=apigw.MethodLoggingLevel.ERROR,
            data_trace_enabled=False,
        ),
    )
    for response_type, status, message in (
        (apigw.ResponseType.UNAUTHORIZED, "401", "unauthorized"),
        (apigw.ResponseType.ACCESS_DENIED, "403", "forbidden"),
        (apigw.ResponseType.BAD_REQUEST_BODY, "400", "bad_request"),
        (apigw.ResponseType.BAD_REQUEST_PARAMETERS, "400", "bad_request"),
        (apigw.ResponseType.THROTTLED, "429", "throttled"),
        # Everything else API Gateway answers itself (a crashed proxy Lambda 502, an integration
        # timeout 504, ...) keeps its status but gets the same structured body.
        (apigw.ResponseType.DEFAULT_4_XX, None, "client_error"),
        (apigw.ResponseType.DEFAULT_5_XX, None, "server_error"),
    ):
        api.add_gateway_response(f"{_pascal(response_type.response_type)}Response", type=response_type,
                                 status_code=status, templates=_json_body(message))
    authorizer = apigw.RequestAuthorizer(
        scope,
        "ApiKeyAuthorizer",
        handler=authorizer_function,
        # The key may come in either of two headers, so no identity source is required, and
        # results are never cached: API Gateway would cache by identity source only, and the
        # answer depends on the route (key scopes) and on the customer token as well.
        identity_sources=[],
        results_cache_ttl=Duration.seconds(0),
    )
    model = api.add_model(
        "TurnRequestModel",
        content_type="application/json",
        model_name="TurnRequest",
        schema=apigw.JsonSchema(
            schema=apigw.JsonSchemaVersion.DRAFT4,
            title="TurnRequest",
            type=apigw.JsonSchemaType.OBJECT,
            required=["message"],
            properties={
                "message": apigw.JsonSchema(type=apigw.JsonSchemaType.STRING, max_length=100_000),
                "customer_id": apigw.JsonSchema(type=apigw.JsonSchemaType.STRING, pattern=CUSTOMER_ID.pattern),
                "turn_id": apigw.JsonSchema(type=apigw.JsonSchemaType.STRING, pattern=f"^{api_mapping.ID_PATTERN}$"),
            },
        ),
    )
    validator = api.add_request_validator("TurnRequestValidator", validate_request_body=True,
                                          validate_request_parameters=True)
    protected = {"authorizer": authorizer, "authorization_type": apigw.AuthorizationType.CUSTOM}
    api.root.resource_for_path("/" + "/".join(AGENT_PATH)).add_method(
        "PUT", apigw.LambdaIntegration(publish_function, proxy=True), **protected,
        request_parameters={"method.request.path.agent_id": True})
    api.root.resource_for_path("/" + "/".join(APPROVAL_PATH)).add_method(
        "POST", apigw.LambdaIntegration(approvals_function, proxy=True), **protected,
        request_parameters={"method.request.path.approval_id": True})
    integration = apigw.StepFunctionsIntegration.start_execution(
        state_machine,
        # The method's responses are TURN_STATUSES below; CDK's defaults (200/400/500) would add each a second time.
        use_default_method_responses=False,
        request_templates={"application/json": api_mapping.request_template(state_machine.state_machine_arn)},
        integration_responses=[
            apigw.IntegrationResponse(
                status_code="200", response_templates={"application/json": api_mapping.RESPONSE_TEMPLATE}),
            apigw.IntegrationResponse(
                selection_pattern=r"4\d{2}", status_code="400",
                response_templates={"application/json": api_mapping.ERROR_TEMPLATE_4XX}),
            apigw.IntegrationResponse(
                selection_pattern=r"5\d{2}", status_code="500",
                response_templates={"application/json": api_mapping.ERROR_TEMPLATE_5XX}),
        ],
    )
    api.root.resource_for_path("/" + "/".join(TURN_PATH)).add_method(
        "POST", integration, **protected,
        request_validator=validator,
        request_models={"application/json": model},
        request_parameters={
            "method.request.path.agent_id": True,
            "method.request.path.session_id": True,
            f"method.request.header.{api_mapping.IDEMPOTENCY_HEADER}": False,
        },
        method_responses=[apigw.MethodResponse(status_code=s) for s in TURN_STATUSES],
    )
    return api


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
