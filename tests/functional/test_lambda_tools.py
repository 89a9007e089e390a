"""`lambda` tools under moto: the real boto3 Invoke call, with moto's Lambda backend dispatching the
invocation to an in-process Python handler (no Docker), as tests/e2e/harness.py does for the stages."""

from __future__ import annotations

import base64
import io
import json
import shutil
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import boto3
import pytest
import yaml
from moto import mock_aws

from focal.adapters.lambda_tools import LambdaToolRunner
from focal.adapters.tool_runner import KindToolRunner
from focal.errors import ToolError, ToolInputInvalid
from focal.models.agent import AgentConfig, Tool
from focal.models.turn import ToolCallContext, TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.tool_keys import idempotency_key
from focal.wiring import local_deps

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail"
AGENT = AgentConfig(id="a", name="a")
REGION = "eu-west-1"


def lookup_order(event: dict[str, Any], context: Any) -> dict[str, Any]:  # noqa: ARG001
    return {"found": True, "status": "shipped", "total": 30.0, "item": f"item of {event['order_id']}"}


def broken(event: dict[str, Any], context: Any) -> dict[str, Any]:  # noqa: ARG001
    raise KeyError(f"customer jane@example.com has no order {event.get('order_id')}")


def not_an_object(event: dict[str, Any], context: Any) -> list[str]:  # noqa: ARG001
    return ["a", "b"]


def refund(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Answers with the key it was given, read the way a Python handler reads it."""
    custom = context.client_context.custom if context.client_context else {}
    return {"refund_reference": f"RF-{event['order_id']}", "key": custom.get("idempotency_key")}


HANDLERS: dict[str, Callable[[dict[str, Any], Any], Any]] = {
    "store-lookup": lookup_order, "store-broken": broken, "store-list": not_an_object, "store-refund": refund,
}


def runtime_context(headers: Any) -> SimpleNamespace:
    """The handler's context as the Python runtime builds it from the Invoke's ClientContext (base64 JSON)."""
    raw = next((v for k, v in dict(headers).items() if k.lower() == "x-amz-client-context"), None)
    if not raw:
        return SimpleNamespace(client_context=None)
    data = json.loads(base64.b64decode(raw))
    return SimpleNamespace(client_context=SimpleNamespace(
        custom=data.get("custom"), env=data.get("env"), client=data.get("client")))


@pytest.fixture
def functions(monkeypatch) -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """moto with its Lambda backend answering from HANDLERS in-process; yields the invocations seen."""
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_SESSION_TOKEN": "testing", "AWS_DEFAULT_REGION": REGION}.items():
        monkeypatch.setenv(key, value)
    from moto.awslambda.exceptions import UnknownFunctionException
    from moto.awslambda_simple.models import LambdaSimpleBackend

    seen: list[tuple[str, dict[str, Any]]] = []

    def invoke(backend, function_name, qualifier, body, headers, response_headers):  # noqa: ARG001
        name = function_name.split(":function:")[-1].split(":")[0]
        if name not in HANDLERS:  # what the service answers for a function that does not exist
            raise UnknownFunctionException(function_name)
        event = json.loads(body) if body else {}
        seen.append((name, event))
        try:
            return json.dumps(HANDLERS[name](event, runtime_context(headers))).encode()
        except Exception as exc:  # what the Lambda runtime reports as an "Unhandled" error
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps({"errorType": type(exc).__name__, "errorMessage": str(exc)}).encode()

    monkeypatch.setattr(LambdaSimpleBackend, "invoke", invoke)
    with mock_aws(config={"lambda": {"use_docker": False}}):
        role = boto3.client("iam").create_role(RoleName="focal-tools", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("placeholder.py", "# runs in-process, see the fixture\n")
        lam = boto3.client("lambda")
        for name in HANDLERS:
            lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="placeholder.handler",
                                Code={"ZipFile": buf.getvalue()})
        yield seen


def lambda_tool(function: str, **overrides: Any) -> Tool:
    spec: dict[str, Any] = {
        "id": "lookup", "kind": "lambda", "function": function, "input": {"order_id": {"type": "id"}},
        "output": {"status": "order_status"},
    }
    spec.update(overrides)
    return Tool.model_validate(spec)


def test_a_lambda_tool_sends_the_arguments_and_returns_the_json_object(functions):
    result = KindToolRunner().run(AGENT, lambda_tool("store-lookup"), {"order_id": "A1001"})
    assert result == {"found": True, "status": "shipped", "total": 30.0, "item": "item of A1001"}
    assert functions == [("store-lookup", {"order_id": "A1001"})]


def refund_tool(**overrides: Any) -> Tool:
    return lambda_tool("store-refund", id="refund", side_effect=True, output={}, **overrides)


def test_a_side_effecting_call_sends_its_idempotency_key_in_the_client_context(functions, caplog):
    caplog.set_level("DEBUG")
    key = idempotency_key("t", "s", "1", "refund", {"order_id": "A1001"})
    context = ToolCallContext(tenant_id="t", session_id="s", turn_id="1", idempotency_key=key)
    result = KindToolRunner().run(AGENT, refund_tool(), {"order_id": "A1001"}, context)
    assert result == {"refund_reference": "RF-A1001", "key": key}
    assert functions == [("store-refund", {"order_id": "A1001"})]  # the payload is the arguments only
    assert key not in caplog.text


def test_a_call_without_a_key_has_no_client_context(functions):
    context = ToolCallContext(tenant_id="t", session_id="s", turn_id="1")
    assert KindToolRunner().run(AGENT, refund_tool(), {"order_id": "A1"}, context)["key"] is None
    assert KindToolRunner().run(AGENT, refund_tool(), {"order_id": "A1"})["key"] is None


def test_the_function_can_be_named_by_arn(functions):
    arn = boto3.client("lambda").get_function(FunctionName="store-lookup")["Configuration"]["FunctionArn"]
    assert KindToolRunner().run(AGENT, lambda_tool(arn), {"order_id": "A2"})["status"] == "shipped"
    assert functions == [("store-lookup", {"order_id": "A2"})]


def test_a_function_error_is_a_tool_error_with_its_type_but_not_its_message(functions):
    with pytest.raises(ToolError) as caught:
        KindToolRunner().run(AGENT, lambda_tool("store-broken", retries=2), {"order_id": "A1"})
    assert str(caught.value) == "tool 'lookup': function error (Unhandled: KeyError)"
    assert "jane" not in str(caught.value)
    assert len(functions) == 1  # a function error is not transient: no retry


def test_an_answer_that_is_not_an_object_is_a_tool_error(functions):
    with pytest.raises(ToolError, match="response is JSON list, expected an object"):
        KindToolRunner().run(AGENT, lambda_tool("store-list"), {"order_id": "A1"})


def test_an_unknown_function_is_a_tool_error(functions):
    with pytest.raises(ToolError, match=r"lambda invoke failed \(ResourceNotFoundException\)"):
        KindToolRunner().run(AGENT, lambda_tool("store-missing"), {"order_id": "A1"})


def test_the_input_is_validated_before_invoking(functions):
    with pytest.raises(ToolInputInvalid, match="argument 'order_id' is required"):
        KindToolRunner().run(AGENT, lambda_tool("store-lookup"), {})
    assert functions == []


def test_throttling_is_retried_for_a_read_only_tool_only():
    """At the client boundary: TooManyRequests twice, then an answer."""
    from botocore.exceptions import ClientError

    class Client:
        def __init__(self) -> None:
            self.calls = 0

        def invoke(self, **kwargs: Any) -> dict[str, Any]:
            self.calls += 1
            if self.calls <= 2:
                raise ClientError({"Error": {"Code": "TooManyRequestsException"},
                                   "ResponseMetadata": {"HTTPStatusCode": 429}}, "Invoke")
            return {"StatusCode": 200, "Payload": io.BytesIO(b'{"status": "ok"}')}

    client, sleeps = Client(), []
    runner = LambdaToolRunner(lambda timeout: client, sleep=sleeps.append)
    assert runner.run(AGENT, lambda_tool("f", retries=2), {"order_id": "A1"}) == {"status": "ok"}
    assert client.calls == 3 and len(sleeps) == 2
    client.calls = 0
    with pytest.raises(ToolError, match="TooManyRequestsException"):
        runner.run(AGENT, lambda_tool("f", retries=2, side_effect=True), {"order_id": "A1"})
    assert client.calls == 1


def test_a_retried_idempotent_call_sends_the_same_key_each_time():
    from botocore.exceptions import ClientError

    sent: list[str | None] = []

    class Client:
        def invoke(self, **kwargs: Any) -> dict[str, Any]:
            sent.append(kwargs.get("ClientContext"))
            if len(sent) == 1:
                raise ClientError({"Error": {"Code": "ServiceException"}, "ResponseMetadata": {"HTTPStatusCode": 500}},
                                  "Invoke")
            return {"StatusCode": 200, "Payload": io.BytesIO(b"{}")}

    runner = LambdaToolRunner(lambda timeout: Client(), sleep=lambda s: None)
    context = ToolCallContext(tenant_id="t", session_id="s", turn_id="1", idempotency_key="k" * 64)
    runner.run(AGENT, lambda_tool("f", retries=1, side_effect=True, idempotent=True), {"order_id": "A1"}, context)
    assert len(sent) == 2 and sent[0] == sent[1]
    # the authenticated customer (here the default, anonymous) travels next to the key
    assert json.loads(base64.b64decode(sent[0] or "")) == {"custom": {"idempotency_key": "k" * 64, "customer_id": "anonymous"}}


def test_a_turn_runs_a_lambda_tool_as_a_step_action(functions, tmp_path):
    folder = tmp_path / "retail"
    shutil.copytree(RETAIL, folder)
    raw = yaml.safe_load((folder / "agent.yaml").read_text())
    [lookup] = [t for t in raw["tools"] if t["id"] == "lookup_order"]
    del lookup["entrypoint"]
    lookup.update({"kind": "lambda", "function": "store-lookup"})
    (folder / "agent.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    runner = LocalRunner(local_deps(folder / "agent.yaml", tmp_path / "focal.db"))
    result = runner.turn(TurnRequest(tenant_id="t", agent_id="retail", session_id="s", turn_id="1",
                                     message="Can you check the status of order A1003?"))
    assert [(t["tool_id"], t["status"]) for t in result.tool_calls] == [("lookup_order", "ok")]
    assert "item of A1003" in result.response and "shipped" in result.response
