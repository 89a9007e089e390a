"""Tools receive the authenticated customer id, and the example tools act on that customer's orders only.

python: the keyword `customer_id` (replacing any argument of that name: a model never names the
customer); http: the header `X-Focal-Customer-Id`; lambda: `custom.customer_id` in the Invoke
ClientContext, never in the payload. The secret signing customer tokens never reaches a tool header.
"""

from __future__ import annotations

import base64
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from focal.adapters.http_tools import HttpToolRunner
from focal.adapters.lambda_tools import LambdaToolRunner
from focal.adapters.python_tools import PythonToolRunner
from focal.adapters.secrets import EnvSecretSource
from focal.config.loader import load_agent
from focal.errors import ToolError
from focal.models.agent import Tool
from focal.models.turn import ToolCallContext

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail"


def context(customer: str = "c-100", key: str | None = None) -> ToolCallContext:
    return ToolCallContext(tenant_id="acme", session_id="s1", turn_id="t1", customer_id=customer, idempotency_key=key)


@pytest.fixture
def retail(tmp_path):
    folder = tmp_path / "retail"
    shutil.copytree(RETAIL, folder, ignore=shutil.ignore_patterns("tests.yaml", "__pycache__"))
    (folder / "whoami.py").write_text(
        "def whoami(order_id, customer_id=None):\n    return {'customer': customer_id, 'order': order_id}\n\n\n"
        "def plain(order_id):\n    return {'order': order_id}\n")
    return load_agent(folder / "agent.yaml")  # its own copy of tools.py: refunds here stay here


def test_python_tools_get_the_authenticated_customer_not_the_models(retail):
    runner = PythonToolRunner()
    tool = Tool(id="whoami", entrypoint="whoami.py:whoami", input={"order_id": {"type": "id"}, "customer_id": {"type": "string"}})
    # the model filled an argument named customer_id: the authenticated customer replaces it
    assert runner.run(retail, tool, {"order_id": "A1", "customer_id": "c-200"}, context("c-100")) == \
        {"customer": "c-100", "order": "A1"}
    assert runner.run(retail, tool, {"order_id": "A1"}, context("anonymous"))["customer"] == "anonymous"
    plain = Tool(id="plain", entrypoint="whoami.py:plain", input={"order_id": {"type": "id"}})
    assert runner.run(retail, plain, {"order_id": "A1"}, context("c-100")) == {"order": "A1"}  # not declared: not passed


def test_the_retail_tools_refuse_another_customers_order(retail):
    runner = PythonToolRunner()

    def run(tool_id: str, arguments: dict[str, Any], customer: str, key: str | None = None) -> dict[str, Any]:
        return runner.run(retail, retail.tool(tool_id), arguments, context(customer, key))

    assert run("lookup_order", {"order_id": "A1003"}, "c-200")["found"] is True
    assert run("lookup_order", {"order_id": "A1003"}, "c-100") == {"found": False, "status": "unknown", "total": None, "item": None}
    assert run("lookup_order", {"order_id": "A1003"}, "anonymous")["found"] is False
    assert run("check_refund_eligibility", {"order_id": "A1003"}, "c-100")["eligible"] is False
    assert run("check_refund_eligibility", {"order_id": "A1003"}, "c-200")["eligible"] is True
    with pytest.raises(ToolError, match="can't be refunded"):
        run("issue_refund", {"order_id": "A1003", "order_total": 120.0}, "c-100", key="k1")
    assert run("update_address", {"order_id": "A1004", "new_address": "1 Thief Road, Nowhere"}, "c-100", key="k2")["updated"] is False
    assert run("update_address", {"order_id": "A1004", "new_address": "2 Owner Street, Portland"}, "c-200", key="k3")["updated"] is True
    assert run("issue_refund", {"order_id": "A1003", "order_total": 120.0}, "c-200", key="k4")["refund_reference"] == "RF-A1003"


def http_tool(**overrides: Any) -> Tool:
    spec: dict[str, Any] = {"id": "lookup", "kind": "http", "url": "https://orders.example.com/orders/{order_id}",
                            "input": {"order_id": {"type": "id"}}, "output": {"status": "order_status"}}
    spec.update(overrides)
    return Tool.model_validate(spec)


def test_http_tools_send_the_customer_header_replacing_the_agent_files():
    runner = HttpToolRunner(EnvSecretSource({}))
    tool = http_tool(headers={"x-focal-customer-id": "c-200"})
    request = runner.build_request(tool, {"order_id": "A1"}, None, "c-100")
    assert [v for k, v in request.header_items() if k.lower() == "x-focal-customer-id"] == ["c-100"]


def test_http_tools_can_never_read_the_customer_token_secret():
    secrets = EnvSecretSource({"FOCAL_SECRET_CUSTOMER_TOKEN_SECRET": "the-signing-secret", "FOCAL_SECRET_API": "ok"})
    runner = HttpToolRunner(secrets)
    allowed = runner.build_request(http_tool(headers={"Authorization": "${secret:api}"}), {"order_id": "A1"})
    assert allowed.get_header("Authorization") == "ok"
    with pytest.raises(ToolError, match="customer_token_secret"):
        runner.build_request(http_tool(headers={"X-Leak": "${secret:customer_token_secret}"}), {"order_id": "A1"})


def test_lambda_tools_get_the_customer_in_the_client_context():
    calls: list[dict[str, Any]] = []

    class Client:
        def invoke(self, **kwargs: Any) -> dict[str, Any]:
            calls.append(kwargs)
            return {"StatusCode": 200, "Payload": io.BytesIO(b'{"status": "ok"}')}

    runner = LambdaToolRunner(lambda timeout: Client())
    tool = Tool.model_validate({"id": "lookup", "kind": "lambda", "function": "f", "input": {"order_id": {"type": "id"}}})
    runner.run(load_agent(RETAIL / "agent.yaml"), tool, {"order_id": "A1"}, context("c-100", key="idem-1"))
    (call,) = calls
    assert json.loads(call["Payload"]) == {"order_id": "A1"}
    assert json.loads(base64.b64decode(call["ClientContext"])) == {"custom": {"idempotency_key": "idem-1", "customer_id": "c-100"}}
