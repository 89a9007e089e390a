"""The approval workflow in AWS: a STANDARD state machine per approval request.

`start` begins an execution named after the request (idempotent: a second start with the same name
and input is a no-op for Step Functions); its first task invokes the approval-wait function with a
task token (`lambda:invoke.waitForTaskToken`, `TimeoutSecondsPath` = the request's remaining time),
which `hold`s the token on the request's DynamoDB item in the sessions table (attribute `task_token`, beside
the request document, so the store's own writes leave it alone). The approval endpoint answers the
request (`dialogue.approvals.answer` runs the action, exactly once) and then `resume`s the workflow
with the decision (`SendTaskSuccess`); an unanswered request times out into the expiry function.
"""

from __future__ import annotations

import json
import logging
from functools import cached_property
from typing import Any

from botocore.exceptions import ClientError

from focal.adapters import aws
from focal.adapters.dynamodb_store import approval_key
from focal.models.approval import ApprovalRequest

log = logging.getLogger("focal.approvals")
GONE = {"InvalidToken", "TaskDoesNotExist", "TaskTimedOut"}


def workflow_input(request: ApprovalRequest, now: float) -> dict[str, Any]:
    """Ids and the wait in seconds (at least 1) only: arguments may hold personal data."""
    return {"tenant_id": request.tenant_id, "approval_id": request.approval_id,
            "timeout_seconds": max(1, int(round(request.expires_at - now)))}


class StepFunctionsApprovalWorkflow:
    def __init__(self, table_name: str, state_machine_arn: str | None = None, sfn_client: Any | None = None,
                 ddb_client: Any | None = None, clock: Any = None) -> None:
        import time

        self.table_name, self.state_machine_arn = table_name, state_machine_arn
        self._sfn_client, self._ddb_client = sfn_client, ddb_client  # created on first use (cold starts)
        self._clock = clock or time.time

    @cached_property
    def _sfn(self) -> Any:
        return self._sfn_client or aws.client("stepfunctions")

    @cached_property
    def _ddb(self) -> Any:
        return self._ddb_client or aws.client("dynamodb")

    def start(self, request: ApprovalRequest) -> None:
        if not self.state_machine_arn:
            log.warning("approval %s: no approval state machine configured; not watched", request.approval_id)
            return
        try:
            self._sfn.start_execution(stateMachineArn=self.state_machine_arn, name=request.approval_id,
                                      input=json.dumps(workflow_input(request, self._clock())))
        except Exception as exc:  # noqa: BLE001 - the request stays answerable; only the timeout is unwatched
            log.warning("approval %s: workflow not started: %s", request.approval_id, type(exc).__name__)

    def hold(self, tenant_id: str, approval_id: str, task_token: str) -> bool:
        try:
            self._ddb.update_item(
                TableName=self.table_name, Key={"pk": {"S": approval_key(tenant_id, approval_id)}},
                UpdateExpression="SET task_token = :t",
                ConditionExpression="attribute_exists(pk) AND #s = :awaiting",
                ExpressionAttributeNames={"#s": "state"},
                ExpressionAttributeValues={":t": {"S": task_token}, ":awaiting": {"S": "awaiting_approval"}},
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def task_token(self, tenant_id: str, approval_id: str) -> str | None:
        item = self._ddb.get_item(TableName=self.table_name, Key={"pk": {"S": approval_key(tenant_id, approval_id)}},
                                  ProjectionExpression="task_token", ConsistentRead=True).get("Item") or {}
        return (item.get("task_token") or {}).get("S")

    def resume(self, tenant_id: str, approval_id: str, output: dict[str, Any]) -> bool:
        token = self.task_token(tenant_id, approval_id)
        if token is None:
            log.warning("approval %s: no task token held; the workflow ends at its timeout", approval_id)
            return False
        try:
            self._sfn.send_task_success(taskToken=token, output=json.dumps(output))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in GONE:
                return False
            raise
        self._ddb.update_item(TableName=self.table_name, Key={"pk": {"S": approval_key(tenant_id, approval_id)}},
                              UpdateExpression="REMOVE task_token", ConditionExpression="attribute_exists(pk)")
        return True
