"""The approval workflow (seed 004) under moto, end to end, from the synthesized template.

A turn whose confidence lands in the approval band (the retail agent at its default weights: "that
should be fine" is a yes recognised only at the exemplar-similarity threshold, so the refund it
confirms scores 0.70, as in tests/functional/test_approvals.py) stores the request
and starts the STANDARD approval state machine; its first task hands a task token to the
approval-wait function (`lambda:invoke.waitForTaskToken`), which keeps it on the request. The
approval endpoint's handler (POST /v1/approvals/{approval_id}) answers: the refund runs once, the
session is updated, and `SendTaskSuccess` resumes the execution into `approved`. Deny runs nothing;
no answer in time (`TimeoutSecondsPath`) → `States.Timeout` → the request is expired by the workflow.
Events are read back from an SQS queue behind an EventBridge rule on the stack's bus.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import boto3
import pytest

from harness import REGION
from test_e2e_conversation import AGENT, RETAIL_YAML, TENANT, publish, world  # noqa: F401 - the fixture

SIMILARITY_YES = "that should be fine"  # a yes at the similarity threshold: 0.70, the approval band


class CountingTools:
    def __init__(self, inner) -> None:
        self.inner, self.runs, self._lock = inner, {}, threading.Lock()

    def run(self, agent, tool, arguments, context=None):
        with self._lock:
            self.runs[tool.id] = self.runs.get(tool.id, 0) + 1
        return self.inner.run(agent, tool, arguments, context)


class Ctx:
    function_name, memory_limit_in_mb, aws_request_id = "approvals", 1024, "approvals-1"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:approvals"


def post_approval(approval_id: str, decision: Any, tenant: str = TENANT) -> tuple[int, dict[str, Any]]:
    """POST /v1/approvals/{approval_id} as API Gateway delivers it after the authorizer allowed `tenant`."""
    from handlers.approvals import handler

    event = {"resource": "/v1/approvals/{approval_id}", "path": f"/v1/approvals/{approval_id}", "httpMethod": "POST",
             "headers": {"content-type": "application/json"}, "multiValueHeaders": {},
             "queryStringParameters": None, "multiValueQueryStringParameters": None,
             "pathParameters": {"approval_id": approval_id}, "stageVariables": None, "isBase64Encoded": False,
             "body": json.dumps({"decision": decision}),
             "requestContext": {"resourcePath": "/v1/approvals/{approval_id}", "httpMethod": "POST", "stage": "live",
                                "requestId": "r", "authorizer": {"tenant_id": tenant}}}
    response = handler(event, Ctx())
    return response["statusCode"], json.loads(response["body"])


class Approvals:
    """One session driven to an approval request, and what it left in moto."""

    def __init__(self, harness, ddb, session_id: str) -> None:
        self.harness, self.ddb, self.session_id, self.n = harness, ddb, session_id, 0
        self.sfn = boto3.client("stepfunctions", region_name=REGION)
        self.machine = harness.machine("ApprovalsApprovalStateMachine")

    def say(self, message: str) -> dict[str, Any]:
        self.n += 1
        execution = self.harness.run({"request": {
            "tenant_id": TENANT, "agent_id": AGENT, "session_id": self.session_id, "customer_id": "c-100",
            "turn_id": f"{self.session_id}-t{self.n}-{uuid.uuid4().hex[:6]}", "message": message}})
        assert execution["status"] == "SUCCEEDED", execution
        assert self.harness.unknown_functions == []
        return execution["output"]

    def request_approval(self) -> str:
        first = self.say("I'd like a refund for order A1001")
        assert first["scenario"] == {"id": "refund", "step_id": "confirm_refund"}, first["response"]
        out = self.say(SIMILARITY_YES)
        assert out["execution_path"] == "approval" and out["approval_state"] == "awaiting_approval", out
        assert 0.55 <= out["confidence"] < 0.85 and out["tool_calls"] == []
        return out["approval"]["id"]

    def execution_arn(self, approval_id: str) -> str:
        return f"arn:aws:states:{REGION}:123456789012:execution:{self.machine['name']}:{approval_id}"

    def item(self, approval_id: str) -> dict[str, Any]:
        from focal.adapters.dynamodb_store import approval_key

        table = self.harness.table_name("SessionsTable")
        return self.ddb.get_item(TableName=table, Key={"pk": {"S": approval_key(TENANT, approval_id)}},
                                 ConsistentRead=True)["Item"]

    def wait_for_token(self, approval_id: str, timeout_s: float = 10.0) -> str:
        deadline = time.monotonic() + timeout_s
        while "task_token" not in (item := self.item(approval_id)):
            assert time.monotonic() < deadline, "the workflow never held a task token"
            time.sleep(0.02)
        return item["task_token"]["S"]

    def session(self) -> dict[str, Any]:
        from focal.adapters.dynamodb_store import session_key

        table = self.harness.table_name("SessionsTable")
        item = self.ddb.get_item(TableName=table, Key={"pk": {"S": session_key(TENANT, AGENT, self.session_id)}},
                                 ConsistentRead=True)["Item"]
        return json.loads(item["doc"]["S"])


@pytest.fixture
def approvals(world, monkeypatch):  # noqa: F811 - the pytest fixture imported from test_e2e_conversation
    """The world of the conversation e2e tests, the agent republished (with `extra`), tool runs
    counted, and the stack's event bus routed to an SQS queue for inspection."""
    harness, ddb, _ = world
    import focal.wiring

    def setup(session_id: str, extra: str = "") -> tuple[Approvals, CountingTools, Any]:
        publish(TENANT, RETAIL_YAML.read_text(encoding="utf-8") + extra)
        deps = focal.wiring.deps_from_env()
        tools = CountingTools(deps.tools)
        monkeypatch.setattr(deps, "tools", tools)
        events, sqs = boto3.client("events", region_name=REGION), boto3.client("sqs", region_name=REGION)
        bus = harness.environment_of("handlers.tools.handler")["FOCAL_EVENT_BUS"]
        queue = sqs.create_queue(QueueName=f"events-{uuid.uuid4().hex[:8]}")["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        events.put_rule(Name="all-focal", EventBusName=bus, EventPattern=json.dumps({"source": ["focal"]}))
        events.put_targets(Rule="all-focal", EventBusName=bus, Targets=[{"Id": "q", "Arn": queue_arn}])

        def received() -> list[dict[str, Any]]:
            out = []
            while msgs := sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10).get("Messages", []):
                out += [json.loads(m["Body"]) for m in msgs]
            return out

        return Approvals(harness, ddb, session_id), tools, received

    return setup


def test_template_gives_the_tools_and_approval_functions_the_workflow_and_the_bus(world):  # noqa: F811 - imported pytest fixture
    harness, _, _ = world
    machine = harness.machine("ApprovalsApprovalStateMachine")
    assert machine["type"] == "STANDARD"
    for handler in ("handlers.tools.handler", "handlers.approvals.handler"):
        env = harness.environment_of(handler)
        assert env["FOCAL_APPROVAL_STATE_MACHINE_ARN"] == machine["arn"] and env["FOCAL_EVENT_BUS"] == "focal-acme"


def test_approve_runs_the_refund_once_and_resumes_the_workflow(approvals):
    chat, tools, received = approvals("e2e-approve")
    approval_id = chat.request_approval()
    token = chat.wait_for_token(approval_id)
    execution = chat.sfn.describe_execution(executionArn=chat.execution_arn(approval_id))
    assert execution["status"] == "RUNNING"
    assert json.loads(execution["input"]) == {"tenant_id": TENANT, "approval_id": approval_id, "timeout_seconds": 300}
    assert "issue_refund" not in tools.runs and chat.session()["pending_approval_id"] == approval_id

    status, body = post_approval(approval_id, "approve")
    assert status == 200, body
    assert body["success"] is True and body["approval_state"] == "approved"
    assert [(c["tool_id"], c["status"]) for c in body["tool_calls"]] == [("issue_refund", "ok")]
    assert "RF-A1001" in body["response"] and "$30.00" in body["response"]
    assert tools.runs["issue_refund"] == 1

    done = chat.harness.wait_for(chat.execution_arn(approval_id))
    assert done["status"] == "SUCCEEDED", done
    assert done["output"]["decision"] == {"decision": "approved", "turn_id": f"{approval_id}-run",
                                          "ran": [{"tool_id": "issue_refund", "status": "ok"}]}
    item = chat.item(approval_id)
    assert item["state"]["S"] == "approved" and "task_token" not in item
    session = chat.session()
    assert session["pending_approval_id"] is None
    assert session["variables"]["refund_reference"] == "RF-A1001"

    # A second approval is refused, nothing runs again, and the used token is gone for good.
    status, again = post_approval(approval_id, "approve")
    assert status == 409 and again["error"]["code"] == "already_decided"
    assert tools.runs["issue_refund"] == 1
    with pytest.raises(chat.sfn.exceptions.InvalidToken):
        chat.sfn.send_task_success(taskToken=token, output="{}")

    events = received()
    kinds = [e["detail-type"] for e in events if e["detail"]["request_id"] == approval_id]
    assert {"approval_requested", "execution_decision", "approval_decided", "tool_result"} <= set(kinds)
    assert all(e["source"] == "focal" for e in events)
    text = json.dumps(events)
    assert SIMILARITY_YES not in text and "A1001" not in text  # no customer text, no argument values


def test_deny_runs_nothing_and_ends_the_workflow(approvals):
    chat, tools, _ = approvals("e2e-deny")
    approval_id = chat.request_approval()
    chat.wait_for_token(approval_id)
    status, body = post_approval(approval_id, "deny")
    assert status == 200 and body["approval_state"] == "denied" and body["tool_calls"] == []
    done = chat.harness.wait_for(chat.execution_arn(approval_id))
    assert done["status"] == "SUCCEEDED" and done["output"]["decision"]["decision"] == "denied"
    assert "issue_refund" not in tools.runs
    assert post_approval(approval_id, "approve")[0] == 409
    assert "issue_refund" not in tools.runs and chat.session()["pending_approval_id"] is None


def test_unknown_other_tenant_and_bad_bodies_are_refused(approvals):
    chat, tools, _ = approvals("e2e-refused")
    approval_id = chat.request_approval()
    chat.wait_for_token(approval_id)
    # Another tenant's id reads exactly like an unknown one.
    status, other = post_approval(approval_id, "approve", tenant="globex")
    assert status == 404 and other["error"]["code"] == "not_found"
    status, unknown = post_approval("apr-nope", "approve")
    assert status == 404 and unknown["error"]["message"].replace("apr-nope", approval_id) == other["error"]["message"]
    assert post_approval(approval_id, "maybe")[0] == 400
    assert post_approval(approval_id, None)[0] == 400
    assert "issue_refund" not in tools.runs
    execution = chat.sfn.describe_execution(executionArn=chat.execution_arn(approval_id))
    assert execution["status"] == "RUNNING"  # still waiting for a real answer
    assert post_approval(approval_id, "deny")[0] == 200


def test_no_answer_in_time_expires_the_request_through_the_workflow(approvals):
    chat, tools, received = approvals("e2e-timeout", "approval:\n  timeout_seconds: 1\n")
    approval_id = chat.request_approval()
    done = chat.harness.wait_for(chat.execution_arn(approval_id), timeout_s=30)
    assert done["status"] == "SUCCEEDED", done
    assert done["output"]["caught"]["Error"] == "States.Timeout"
    assert done["output"]["expiry"] == {"approval_id": approval_id, "state": "expired", "expired_now": True}
    assert chat.item(approval_id)["state"]["S"] == "expired"

    status, late = post_approval(approval_id, "approve")
    assert status == 410 and late["error"]["code"] == "expired" and "expired" in late["error"]["message"]
    assert "issue_refund" not in tools.runs
    expired = [e for e in received() if e["detail-type"] == "approval_expired"]
    assert len(expired) == 1 and expired[0]["detail"]["request_id"] == approval_id
