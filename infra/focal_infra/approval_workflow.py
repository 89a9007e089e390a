"""The approval workflow: a STANDARD state machine per approval request.

    wait for decision   lambda:invoke.waitForTaskToken → the approval-wait function keeps the token
                        on the request; TimeoutSecondsPath = $.timeout_seconds (the request's time left)
      ├─ resumed by SendTaskSuccess (the approval endpoint, after it decided) → decided ($.decision)
      │     Choice on $.decision.decision: approved | denied (Succeed), anything else → Fail
      ├─ Catch States.Timeout → expire (the approval-timeout function marks it expired) → expired
      └─ Catch States.ALL (the wait task failed) → expire → expired
    expire: Catch States.ALL → expiry failed (Fail, named)

The workflow never runs a tool: the endpoint does, exactly once, through `dialogue.approvals.answer`.
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_stepfunctions as sfn
from aws_cdk import aws_stepfunctions_tasks as tasks
from constructs import Construct

from focal_infra.state_machine import RetryPolicy

WAIT_STATE = "wait for decision"
EXPIRE_STATE = "expire"
EXPIRY_FAILED_STATE = "expiry failed"
TIMEOUT_PATH = "$.timeout_seconds"
DECISION_PATH = "$.decision"
MAX_WAIT = Duration.days(7)  # the whole execution's bound; each wait is the request's own timeout


class ApprovalWorkflow(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, wait_function: lambda_.IFunction,
                 timeout_function: lambda_.IFunction, log_retention: logs.RetentionDays, tenant: str,
                 log_group: logs.ILogGroup | None = None, retry: RetryPolicy = RetryPolicy()) -> None:
        super().__init__(scope, construct_id)
        ids = {"tenant_id": sfn.JsonPath.string_at("$.tenant_id"),
               "approval_id": sfn.JsonPath.string_at("$.approval_id")}
        wait = tasks.LambdaInvoke(
            self, "Wait", state_name=WAIT_STATE, lambda_function=wait_function,
            integration_pattern=sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
            payload=sfn.TaskInput.from_object({**ids, "task_token": sfn.JsonPath.task_token}),
            task_timeout=sfn.Timeout.at(TIMEOUT_PATH),
            result_path=DECISION_PATH, retry_on_service_exceptions=False,
        )
        wait.add_retry(**retry.kwargs())
        expire = tasks.LambdaInvoke(
            self, "Expire", state_name=EXPIRE_STATE, lambda_function=timeout_function,
            payload=sfn.TaskInput.from_object(ids), payload_response_only=True, result_path="$.expiry",
            retry_on_service_exceptions=False,
        )
        expire.add_retry(**retry.kwargs())
        expire.next(sfn.Succeed(self, "Expired", state_name="expired"))
        # Every task has a Catch: a timeout expires the request; any other failure of the wait (the
        # token could not be stored, the function failed) expires it too, so it never stays pending;
        # a failing expiry ends the execution as failed, named, instead of an unhandled error.
        wait.add_catch(expire, errors=[sfn.Errors.TIMEOUT], result_path="$.caught")
        wait.add_catch(expire, errors=[sfn.Errors.ALL], result_path="$.caught")
        expire.add_catch(sfn.Fail(self, "ExpiryFailed", state_name=EXPIRY_FAILED_STATE, error="ExpiryFailed",
                                  cause="the approval request could not be marked expired"),
                         errors=[sfn.Errors.ALL], result_path="$.caught")
        decided = (sfn.Choice(self, "Decided", state_name="decided")
                   .when(sfn.Condition.string_equals("$.decision.decision", "approved"),
                         sfn.Succeed(self, "Approved", state_name="approved"))
                   .when(sfn.Condition.string_equals("$.decision.decision", "denied"),
                         sfn.Succeed(self, "Denied", state_name="denied"))
                   .otherwise(sfn.Fail(self, "Unexpected", state_name="unexpected decision",
                                       error="UnexpectedDecision")))
        wait.next(decided)
        self.state_machine = sfn.StateMachine(
            self, "ApprovalStateMachine",
            state_machine_type=sfn.StateMachineType.STANDARD,
            definition_body=sfn.DefinitionBody.from_chainable(wait),
            logs=sfn.LogOptions(destination=log_group or logs.LogGroup(self, "Logs", retention=log_retention),
                                level=sfn.LogLevel.ERROR, include_execution_data=False),
            tracing_enabled=True,
            timeout=MAX_WAIT,
            comment=f"Focal approval requests ({tenant}): wait on a task token, expire on timeout",
        )
