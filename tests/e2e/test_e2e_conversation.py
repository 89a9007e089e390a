"""A real conversation through the synthesized state machine, in moto, with the real stage handlers.

Nothing is stubbed on the happy path: every Task of the CDK-generated definition invokes the
handler the template names (functions/handlers/<stage>.py), which builds its ports from the
FOCAL_* environment the template gives the functions: DynamoDB stores (moto tables created from
the template), the agent definition read from the config table, the retail example's Python tools
and the offline ONNX components. The agent is published through the real publish handler
(PUT /v1/agents/{agent_id}) into the OpenSearch rule index the template configures; OpenSearch
itself is the one part that cannot run here, so its client is the fake of tests/fakes, which
interprets the adapter's request bodies.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import boto3
import pytest

from focal.adapters.dynamodb_store import DynamoConfigStore, session_key
from focal.models.agent import Tool
from focal.turn.definition import FALLBACK_HANDLER, STAGE_NAMES, STAGES
from harness import REGION

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the `fakes` package
from fakes.opensearch import FakeOpenSearch  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
RETAIL_YAML = EXAMPLES / "retail" / "agent.yaml"
TENANT, AGENT = "acme", "retail"
STAGE_OF_HANDLER = {**{s.handler: s.name for s in STAGES}, FALLBACK_HANDLER: "fallback"}
# What differs between the stage functions' environments in the template, by design.
# FOCAL_USE_FILES: the multilingual weights, for the functions that embed in that space only
PER_FUNCTION_KEYS = {"FOCAL_STAGE", "FOCAL_OPENSEARCH_ENDPOINT", "FOCAL_INDEX", "FOCAL_USE_FILES"}


class _Ctx:
    function_name, memory_limit_in_mb, aws_request_id = "publish", 1024, "publish-1"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:publish"


def publish(tenant: str, yaml_text: str) -> dict[str, Any]:
    """PUT /v1/agents/retail as API Gateway delivers it after the authorizer allowed `tenant`."""
    from handlers.agents import handler

    event = {"resource": "/v1/agents/{agent_id}", "path": f"/v1/agents/{AGENT}", "httpMethod": "PUT",
             "headers": {"content-type": "application/yaml"}, "multiValueHeaders": {},
             "queryStringParameters": None, "multiValueQueryStringParameters": None,
             "pathParameters": {"agent_id": AGENT}, "stageVariables": None, "isBase64Encoded": False,
             "body": yaml_text, "requestContext": {"resourcePath": "/v1/agents/{agent_id}", "httpMethod": "PUT",
                                                   "stage": "live", "requestId": "r", "authorizer": {"tenant_id": tenant}}}
    response = handler(event, _Ctx())
    assert response["statusCode"] == 200, response["body"]
    return json.loads(response["body"])


def _clear_caches() -> None:
    import focal.settings
    import focal.wiring

    focal.settings.get_settings.cache_clear()
    focal.wiring.deps_from_env.cache_clear()


def _reset_tools(agent) -> None:
    """Forget refunds issued by the retail tools (module-level state in the tool worker of TENANT's turns)."""
    from focal.adapters.python_tools import PythonToolRunner

    PythonToolRunner().run_outside_turn(agent, Tool(id="reset_state", entrypoint="tools.py:reset_state"), TENANT)


def same_result(stored: dict[str, Any], output: dict[str, Any]) -> bool:
    """The stored turn result is the execution's output; only persist's own timing, known after
    the record is written, may be missing from the stored one."""
    stored, output = dict(stored), dict(output)
    stored_timings, output_timings = stored.pop("timings_ms"), output.pop("timings_ms")
    output_timings.pop("persist", None)
    return stored == output and stored_timings == output_timings


class Conversation:
    """Turns of one session, through `harness.run`, plus the DynamoDB rows they left."""

    def __init__(self, harness, ddb, session_id: str, customer_id: str = "c-100"):
        self.harness, self.ddb = harness, ddb
        self.session_id, self.customer_id = session_id, customer_id
        self.turn_ids: list[str] = []
        self.results: list[dict[str, Any]] = []

    def say(self, message: str) -> dict[str, Any]:
        turn_id = f"{self.session_id}-t{len(self.turn_ids) + 1}-{uuid.uuid4().hex[:6]}"
        start = len(self.harness.invocations)
        execution = self.harness.run({
            "request": {
                "tenant_id": TENANT, "agent_id": AGENT, "session_id": self.session_id,
                "customer_id": self.customer_id, "turn_id": turn_id, "message": message,
            }
        })
        self.stages = [STAGE_OF_HANDLER[i.handler] for i in self.harness.invocations[start:]]
        assert self.harness.unknown_functions == []
        assert execution["status"] == "SUCCEEDED", execution
        output = execution["output"]
        assert output["turn_id"] == turn_id and output["session_id"] == self.session_id
        self.turn_ids.append(turn_id)
        self.results.append(output)
        return output

    @property
    def pk(self) -> str:
        return session_key(TENANT, AGENT, self.session_id)

    def session_item(self) -> dict[str, Any] | None:
        table = self.harness.table_name("SessionsTable")
        return self.ddb.get_item(TableName=table, Key={"pk": {"S": self.pk}}, ConsistentRead=True).get("Item")

    def turn_items(self) -> list[dict[str, Any]]:
        table = self.harness.table_name("TurnsTable")
        items = self.ddb.query(
            TableName=table, KeyConditionExpression="pk = :pk", ExpressionAttributeValues={":pk": {"S": self.pk}},
        )["Items"]
        return sorted(items, key=lambda item: int(item["turn_number"]["N"]))


@pytest.fixture
def world(moto_pipeline, monkeypatch):
    """Tables, functions and state machine from the template; the functions' environment; the agent stored."""
    harness = moto_pipeline
    ddb = boto3.client("dynamodb", region_name=REGION)
    harness.create_tables(ddb)
    harness.create_functions_and_state_machine()

    env = harness.environment_of("handlers.sensor.handler")
    # Every stage function (and the fallback) gets the same configuration from the template.
    for fn in harness.functions.values():
        if fn["handler"] in STAGE_OF_HANDLER:
            raw = fn["props"]["Environment"]["Variables"]
            assert set(raw) - PER_FUNCTION_KEYS == set(env) - PER_FUNCTION_KEYS, fn["handler"]
    assert env["FOCAL_STORE"] == "dynamodb" and env["FOCAL_CONFIG_SOURCE"] == "dynamodb"
    assert env["FOCAL_TURNS_TABLE"] == harness.table_name("TurnsTable")
    assert env["FOCAL_CONFIG_TABLE"] == harness.table_name("AgentConfigTable")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("FOCAL_AGENTS_ROOT", str(EXAMPLES))  # the code asset's `agents/` folder, locally
    monkeypatch.delenv("FOCAL_MODEL_DIR", raising=False)  # no /opt/models layer: models from installed packages
    # Retrieve and publish search and write the OpenSearch index the template points them at.
    for handler in ("handlers.retrieve.handler", "handlers.agents.handler"):
        fn_env = harness.environment_of(handler)
        assert fn_env["FOCAL_INDEX"] == "opensearch" and fn_env["FOCAL_OPENSEARCH_ENDPOINT"]
    monkeypatch.setenv("FOCAL_INDEX", "opensearch")
    monkeypatch.setenv("FOCAL_OPENSEARCH_ENDPOINT", harness.environment_of("handlers.retrieve.handler")["FOCAL_OPENSEARCH_ENDPOINT"])
    fake = FakeOpenSearch()
    monkeypatch.setattr("focal.adapters.opensearch_index.opensearch_client", lambda *a, **k: fake)

    _clear_caches()
    published = publish(TENANT, RETAIL_YAML.read_text(encoding="utf-8"))
    assert published["agent_id"] == AGENT and published["indexed"]["embedded"] > 0
    configs = DynamoConfigStore(env["FOCAL_CONFIG_TABLE"], client=ddb, agents_root=str(EXAMPLES))
    agent = configs.get_agent(TENANT, AGENT)
    _reset_tools(agent)
    try:
        yield harness, ddb, agent
    finally:
        _reset_tools(agent)
        _clear_caches()


def test_a_plain_turn_runs_every_stage_task_once_in_order(world):
    harness, ddb, _ = world
    out = Conversation(harness, ddb, "e2e-order").say("I want a refund for my order")
    assert out["success"] is True
    assert [STAGE_OF_HANDLER[i.handler] for i in harness.invocations] == list(STAGE_NAMES)
    assert all(i.ok for i in harness.invocations)
    # Each stage's own timing was recorded by the handler that ran it.
    assert set(out["timings_ms"]) == set(STAGE_NAMES)


def test_refund_conversation_across_turns(world):
    harness, ddb, _ = world
    chat = Conversation(harness, ddb, "e2e-refund")

    first = chat.say("I want a refund for my order")
    assert first["success"] is True and first["error"] is None
    assert first["execution_path"] == "respond"
    assert first["scenario"] == {"id": "refund", "step_id": "collect_order"}
    assert "order number" in first["response"]
    assert first["tool_calls"] == []
    assert chat.stages == list(STAGE_NAMES)

    # The order id is remembered from the previous turn's session (DynamoDB), tools run in `tools`.
    second = chat.say("It's A1001")
    assert second["success"] is True and second["execution_path"] == "respond"
    assert second["scenario"] == {"id": "refund", "step_id": "confirm_refund"}
    assert "$30.00" in second["response"] and "A1001" in second["response"]
    assert "RF-A1001" not in second["response"]  # asked to confirm, not refunded yet
    assert [(t["tool_id"], t["status"]) for t in second["tool_calls"]] == [
        ("lookup_order", "ok"), ("check_refund_eligibility", "ok"),
    ]
    assert second["tool_calls"][1]["outputs"]["refund_eligible"] is True

    third = chat.say("yes please")
    assert third["success"] is True and third["execution_path"] == "respond"
    assert third["scenario"] == {"id": "refund", "step_id": "refund_done"}
    assert "RF-A1001" in third["response"] and "$30.00" in third["response"]
    refunds = [t for t in third["tool_calls"] if t["tool_id"] == "issue_refund"]
    assert len(refunds) == 1 and refunds[0]["status"] == "ok"
    assert refunds[0]["arguments"] == {"order_id": "A1001", "order_total": 30.0}
    assert refunds[0]["outputs"] == {"refund_reference": "RF-A1001", "refund_issued_amount": 30.0}
    assert third["enforcement"]["violations"] == []

    # --- what the turns left in DynamoDB -----------------------------------------------------
    session = chat.session_item()
    assert session is not None
    assert int(session["version"]["N"]) == 4  # three turns + the claim written before the refund ran
    doc = json.loads(session["doc"]["S"])
    assert doc["turn_count"] == 3 and doc["session_id"] == "e2e-refund"

    items = chat.turn_items()
    assert len(items) == 3
    assert [item["sk"]["S"] for item in items] == [f"TURN#{t}" for t in chat.turn_ids]
    for number, (item, result) in enumerate(zip(items, chat.results, strict=True), start=1):
        record = json.loads(item["doc"]["S"])
        assert int(item["turn_number"]["N"]) == record["turn_number"] == number
        assert record["turn_id"] == result["turn_id"] and record["customer_id"] == "c-100"
        assert same_result(record["result"], result)


def test_refund_over_the_cap_is_blocked_and_regenerated(world):
    harness, ddb, _ = world
    chat = Conversation(harness, ddb, "e2e-cap")
    out = chat.say("I want a refund for order A1002")
    assert out["success"] is True
    # the blocked offer was withdrawn: the flow waits at the step for another order (a changed value offers again)
    assert out["scenario"] == {"id": "refund", "step_id": "confirm_refund"}
    assert "refund_cap" in [v["rule_id"] for v in out["enforcement"]["violations"]]
    assert out["enforcement"]["regenerations"] == 1
    assert "$75" not in out["response"]
    assert "A1002" in out["response"] and "review" in out["response"]
    assert not [t for t in out["tool_calls"] if t["tool_id"] == "issue_refund"]
    # The definition's enforce → generate loop ran once: generate and enforce twice each.
    assert chat.stages == [
        "sensor", "retrieve", "route", "tools", "generate", "enforce", "generate", "enforce", "persist",
    ]

    items = chat.turn_items()
    assert len(items) == 1
    assert same_result(json.loads(items[0]["doc"]["S"])["result"], out)
    assert int(chat.session_item()["version"]["N"]) == 1


def test_a_failing_stage_is_caught_and_the_turn_recorded(world):
    harness, ddb, agent = world
    chat = Conversation(harness, ddb, "e2e-fail")
    chat.say("I want a refund for my order")

    def boom(event, context):
        raise RuntimeError("generate is down")

    harness.override("handlers.generate.handler", boom)
    out = chat.say("It's A1001")
    assert chat.stages == ["sensor", "retrieve", "route", "tools", "generate", "fallback"]
    assert not harness.invocations[-2].ok and harness.invocations[-1].ok
    assert out["success"] is False
    assert out["execution_path"] == "fallback"
    assert out["response"] == agent.enforcement.fallback_message != ""
    assert out["error"]["code"] == "stage_failed:RuntimeError"
    assert out["error"]["stage"] == "generate"  # inferred from the state, the Lambda error does not say
    assert "$30.00" not in out["response"]

    items = chat.turn_items()
    assert len(items) == 2
    record = json.loads(items[1]["doc"]["S"])
    assert record["turn_id"] == chat.turn_ids[1] and record["turn_number"] == 2
    assert same_result(record["result"], out)

    # The next turn runs normally again (the failed turn counted, but left the flow where it was).
    del harness.overrides["handlers.generate.handler"]
    again = chat.say("It's A1001")
    assert again["success"] is True and again["scenario"] == {"id": "refund", "step_id": "confirm_refund"}
    numbers = [json.loads(item["doc"]["S"])["turn_number"] for item in chat.turn_items()]
    assert numbers == [1, 2, 3]  # the failed turn counted once, no number reused
