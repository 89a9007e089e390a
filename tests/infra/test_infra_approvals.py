"""The approval workflow in the template (seed 004): a STANDARD state machine waiting on a task token,
the approval route behind the authorizer, the event bus, and who may start, resume and publish."""

from __future__ import annotations

import json

import pytest

from infra_helpers import definition_with_placeholders, of_type
from infra_helpers import method as api_method
from test_infra_stack import function_by_handler, functions, logical_id_of, role_statements  # noqa: F401

# function_by_handler and functions are pytest fixtures: imported for pytest (F401), then named as test parameters (F811).

SERVICE_ERRORS = ["Lambda.ServiceException", "Lambda.AWSLambdaException", "Lambda.SdkClientException",
                  "Lambda.TooManyRequestsException"]
WAIT, TIMEOUT, API = "handlers.approval_wait.handler", "handlers.approval_timeout.handler", "handlers.approvals.handler"


@pytest.fixture(scope="module")
def machine_lid(resources) -> str:
    return logical_id_of(resources, "ApprovalsApprovalStateMachine")


@pytest.fixture(scope="module")
def definition(resources, machine_lid):
    return definition_with_placeholders(resources[machine_lid]["Properties"]["DefinitionString"])


def actions_of(statements, prefix: str) -> list[tuple[set[str], object]]:
    out = []
    for st in statements:
        actions = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
        if any(a.startswith(prefix) for a in actions):
            out.append(({a for a in actions if a.startswith(prefix)}, st["Resource"]))
    return out


def test_standard_machine_traced_logging_errors_without_data(resources, machine_lid):
    props = resources[machine_lid]["Properties"]
    assert props["StateMachineType"] == "STANDARD"
    assert props["TracingConfiguration"] == {"Enabled": True}
    assert props["LoggingConfiguration"]["Level"] == "ERROR"
    assert props["LoggingConfiguration"]["IncludeExecutionData"] is False


def test_waits_on_a_task_token_for_the_requests_own_timeout(definition, function_by_handler):  # noqa: F811 - imported pytest fixture
    assert definition["StartAt"] == "wait for decision"
    wait = definition["States"]["wait for decision"]
    assert wait["Type"] == "Task"
    assert wait["Resource"] == "arn:<Ref AWS::Partition>:states:::lambda:invoke.waitForTaskToken"
    assert wait["Parameters"] == {
        "FunctionName": f"<GetAtt {function_by_handler[WAIT][0]}.Arn>",
        "Payload": {"tenant_id.$": "$.tenant_id", "approval_id.$": "$.approval_id", "task_token.$": "$$.Task.Token"},
    }
    assert wait["TimeoutSecondsPath"] == "$.timeout_seconds" and "TimeoutSeconds" not in wait
    assert wait["ResultPath"] == "$.decision" and wait["Next"] == "decided"
    assert wait["Catch"] == [{"ErrorEquals": ["States.Timeout"], "ResultPath": "$.caught", "Next": "expire"},
                             {"ErrorEquals": ["States.ALL"], "ResultPath": "$.caught", "Next": "expire"}]
    assert [r["ErrorEquals"] for r in wait["Retry"]] == [SERVICE_ERRORS]
    assert definition["TimeoutSeconds"] == 7 * 24 * 3600  # the whole execution's bound


def test_timeout_expires_through_the_timeout_function_and_decisions_end_the_execution(definition, function_by_handler):  # noqa: F811
    states = definition["States"]
    expire = states["expire"]
    assert expire["Resource"] == f"<GetAtt {function_by_handler[TIMEOUT][0]}.Arn>"
    assert expire["Parameters"] == {"tenant_id.$": "$.tenant_id", "approval_id.$": "$.approval_id"}
    assert expire["Next"] == "expired" and states["expired"] == {"Type": "Succeed"}
    assert expire["Catch"] == [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.caught", "Next": "expiry failed"}]
    assert states["expiry failed"]["Type"] == "Fail" and states["expiry failed"]["Error"] == "ExpiryFailed"
    decided = states["decided"]
    assert decided["Type"] == "Choice"
    assert {(c["Variable"], c["StringEquals"], c["Next"]) for c in decided["Choices"]} == {
        ("$.decision.decision", "approved", "approved"), ("$.decision.decision", "denied", "denied")}
    assert states[decided["Default"]]["Type"] == "Fail"
    assert states["approved"] == states["denied"] == {"Type": "Succeed"}


def test_the_workflow_may_invoke_only_its_two_functions(resources, machine_lid, function_by_handler):  # noqa: F811
    role = resources[machine_lid]["Properties"]["RoleArn"]["Fn::GetAtt"][0]
    invoked = {r["Fn::GetAtt"][0] for p in of_type(resources, "AWS::IAM::Policy").values()
               if {"Ref": role} in p["Properties"]["Roles"]
               for st in p["Properties"]["PolicyDocument"]["Statement"] if st["Action"] == "lambda:InvokeFunction"
               for r in st["Resource"] if "Fn::GetAtt" in r}
    assert invoked == {function_by_handler[WAIT][0], function_by_handler[TIMEOUT][0]}


def test_approval_route_goes_through_the_authorizer_to_the_approvals_function(resources, function_by_handler):  # noqa: F811
    post = api_method(resources, "POST", "{approval_id}")["Properties"]
    (auth_lid,) = of_type(resources, "AWS::ApiGateway::Authorizer")
    assert post["AuthorizationType"] == "CUSTOM" and post["AuthorizerId"] == {"Ref": auth_lid}
    assert post["Integration"]["Type"] == "AWS_PROXY"
    from test_infra_stack import alias_of

    assert alias_of(resources, function_by_handler[API][0]) in json.dumps(post["Integration"]["Uri"])  # SnapStart
    assert post["RequestParameters"] == {"method.request.path.approval_id": True}


def test_the_functions_that_run_the_tools_stage_start_the_machine_and_only_the_endpoint_resumes_it(
        resources, machine_lid, function_by_handler):  # noqa: F811 - imported pytest fixture
    """The tools stage may ask for an approval: the tools function, and the approval endpoint, which runs the
    tools stage again for the approved action. Only the endpoint answers a waiting execution."""
    for handler, (lid, _) in function_by_handler.items():
        grants = sorted(actions_of(role_statements(resources, lid), "states:"), key=str)
        if handler == "handlers.tools.handler":
            assert grants == [({"states:StartExecution"}, {"Ref": machine_lid})]
        elif handler == API:
            assert sorted(a for actions, resource in grants for a in actions if resource == {"Ref": machine_lid}) == [
                "states:SendTaskSuccess", "states:StartExecution"]
            assert all(resource == {"Ref": machine_lid} for _, resource in grants)
        else:
            assert grants == [], handler


def test_events_go_to_the_tenants_bus_from_the_publishing_functions_only(resources, function_by_handler):  # noqa: F811
    (bus_lid, bus), = of_type(resources, "AWS::Events::EventBus").items()
    assert bus["Properties"]["Name"] == "focal-acme"
    publishers = {"handlers.tools.handler", API, TIMEOUT}
    for handler, (lid, _fn) in function_by_handler.items():
        grants = actions_of(role_statements(resources, lid), "events:")
        if handler in publishers:
            assert grants == [({"events:PutEvents"}, {"Fn::GetAtt": [bus_lid, "Arn"]})], handler
        else:
            assert grants == [], handler
    env = function_by_handler["handlers.tools.handler"][1]["Properties"]["Environment"]["Variables"]
    assert env["FOCAL_EVENT_BUS"] == {"Ref": bus_lid}


def test_workflow_functions_reach_only_this_tenants_approval_items(resources, function_by_handler):  # noqa: F811 - imported pytest fixture
    """The approval workflow's own functions touch approval requests only; the tools function also claims the
    session (a put on the session's own keys) before a side effect runs."""
    sessions = logical_id_of(resources, "SessionsTable")
    approval_items = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["TENANT#acme#APPROVAL#*"]}}
    for handler in ("handlers.tools.handler", WAIT, TIMEOUT):
        lid = function_by_handler[handler][0]
        scoped = [st for st in role_statements(resources, lid) if any(
            a.startswith("dynamodb:") for a in (st["Action"] if isinstance(st["Action"], list) else [st["Action"]]))
            and sessions in json.dumps(st["Resource"])]
        assert [st["Condition"] for st in scoped].count(approval_items) == 1, handler
        others = [st for st in scoped if st["Condition"] != approval_items]
        if handler == "handlers.tools.handler":
            assert [(st["Action"], st["Condition"]) for st in others] == [
                ("dynamodb:PutItem", {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["TENANT#acme#*"]}})]
        else:
            assert others == [], handler


def test_the_state_machine_arn_reaches_the_pipeline_but_not_the_workflows_own_functions(resources, machine_lid,
                                                                                          function_by_handler):  # noqa: F811
    for handler, (_, fn) in function_by_handler.items():
        env = (fn["Properties"].get("Environment") or {}).get("Variables", {})
        if handler in (WAIT, TIMEOUT, "handlers.authorizer.handler", "handlers.agents.handler"):
            assert "FOCAL_APPROVAL_STATE_MACHINE_ARN" not in env, handler  # (a dependency cycle for the first two)
        else:
            assert env["FOCAL_APPROVAL_STATE_MACHINE_ARN"] == {"Ref": machine_lid}, handler


def test_only_the_functions_that_run_tools_may_read_tool_secrets_and_invoke_tool_functions(resources, function_by_handler):  # noqa: F811
    """Tool runners: focal/acme/* (minus the customer-token secret) and focal-acme-tool-* functions. Model-calling
    functions: the model key secret only. The authorizer: the customer-token secret only. Nobody else: none."""
    from focal_infra.models_access import calls_models

    stack_names = {"agents": "publish", "approval_wait": "approval-wait", "approval_timeout": "approval-timeout"}

    def statements_of(handler):
        return role_statements(resources, function_by_handler[handler][0])

    runners = {"handlers.tools.handler", "handlers.approvals.handler"}
    for handler in function_by_handler:
        found: dict[str, list[str]] = {}
        for st in statements_of(handler):
            if st.get("Effect", "Allow") != "Allow":
                continue
            for action in st["Action"] if isinstance(st["Action"], list) else [st["Action"]]:
                if action in ("secretsmanager:GetSecretValue", "lambda:InvokeFunction"):
                    targets = st["Resource"] if isinstance(st["Resource"], list) else [st["Resource"]]
                    found.setdefault(action, []).extend(json.dumps(t) for t in targets)
        denied = [json.dumps(st["Resource"]) for st in statements_of(handler) if st.get("Effect") == "Deny"]
        secrets = found.pop("secretsmanager:GetSecretValue", [])
        module = handler.split(".")[1]
        if calls_models(stack_names.get(module, module)):
            model_key = [s for s in secrets if ":secret:focal/acme/model_api_key-??????" in s]
            assert len(model_key) == 1, (handler, secrets)
            secrets.remove(model_key[0])
        if handler == "handlers.authorizer.handler":  # it verifies customer tokens: that one secret, nothing else
            assert len(secrets) == 1 and ":secret:focal/acme/customer_token_secret" in secrets[0], secrets
            assert not found
            continue
        if handler not in runners:
            assert not secrets and not found, handler
            continue
        (secret,) = secrets
        (invoke,) = found["lambda:InvokeFunction"]
        assert ":secret:focal/acme/*" in secret, secret  # the stack's tenant is "acme"
        # ...but never the customer-token signing secret, which a tool header could otherwise send out
        assert any(":secret:focal/acme/customer_token_secret" in d for d in denied), denied
        assert ":function:focal-acme-tool-*" in invoke, invoke
