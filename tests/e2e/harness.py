"""Run the synthesized state machine under moto, with every Lambda dispatched to in-process code.

The harness takes the CloudFormation template CDK produced, resolves the tokens in the state
machine's DefinitionString (Fn::Join / Fn::GetAtt / Ref), creates the functions and the state
machine in moto from that exact definition, and replaces moto's Docker-less Lambda backend so an
invocation calls the Python handler named by the function's `Handler` property in the template.
"""

from __future__ import annotations

import importlib
import io
import json
import re
import time
import uuid
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import boto3

ACCOUNT = "123456789012"
REGION = "us-east-1"
PSEUDO = {
    "AWS::Partition": "aws",
    "AWS::Region": REGION,
    "AWS::AccountId": ACCOUNT,
    "AWS::URLSuffix": "amazonaws.com",
    "AWS::NoValue": None,
}

Handler = Callable[[dict, Any], dict]


class UnresolvedToken(KeyError):
    pass


def resolve(value: Any, refs: Mapping[str, Any], attrs: Mapping[tuple[str, str], Any]) -> Any:
    """Resolve the intrinsic functions CDK emits in a definition; anything unknown is an error."""
    if isinstance(value, list):
        return [resolve(v, refs, attrs) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (key, arg), = value.items()
        if key == "Fn::Join":
            sep, parts = arg
            return sep.join(str(resolve(p, refs, attrs)) for p in resolve(parts, refs, attrs))
        if key == "Ref":
            if arg in PSEUDO:
                return PSEUDO[arg]
            if arg in refs:
                return refs[arg]
            raise UnresolvedToken(f"Ref {arg}")
        if key == "Fn::GetAtt":
            logical_id, attribute = arg if isinstance(arg, list) else arg.split(".", 1)
            if (logical_id, attribute) in attrs:
                return attrs[(logical_id, attribute)]
            raise UnresolvedToken(f"Fn::GetAtt {logical_id}.{attribute}")
        if key == "Fn::Sub" and isinstance(arg, str):  # the one-string form: ${Pseudo} and ${LogicalId}
            return re.sub(r"\$\{([^}]+)\}", lambda m: str(resolve({"Ref": m.group(1)}, refs, attrs)), arg)
        if key.startswith("Fn::"):
            raise UnresolvedToken(f"unsupported intrinsic {key}")
    return {k: resolve(v, refs, attrs) for k, v in value.items()}


@dataclass
class FakeContext:
    function_name: str
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = ""
    log_group_name: str = "/aws/lambda/test"
    log_stream_name: str = "test"

    def get_remaining_time_in_millis(self) -> int:
        return 20_000


def import_handler(path: str) -> Handler:
    module_name, attribute = path.rsplit(".", 1)
    return getattr(importlib.import_module(module_name), attribute)


@dataclass
class Invocation:
    function: str
    handler: str
    ok: bool
    error: str | None = None


class PipelineHarness:
    """One synthesized template → moto resources + an in-process Lambda dispatcher."""

    def __init__(self, template: dict[str, Any]):
        self.template = template
        resources = template["Resources"]
        self.functions: dict[str, dict[str, Any]] = {}  # logical id → {name, arn, handler, env}
        self.tables: dict[str, dict[str, Any]] = {}  # logical id → properties + name
        refs: dict[str, Any] = {}
        attrs: dict[tuple[str, str], Any] = {}
        for logical_id, resource in resources.items():
            props = resource.get("Properties", {})
            if resource["Type"] == "AWS::Lambda::Function":
                name = logical_id[:64]
                arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"
                self.functions[logical_id] = {"name": name, "arn": arn, "handler": props["Handler"], "props": props}
                refs[logical_id] = name
                attrs[(logical_id, "Arn")] = arn
            elif resource["Type"] == "AWS::DynamoDB::Table":
                name = f"{logical_id}-{uuid.uuid4().hex[:6]}"
                self.tables[logical_id] = {"name": name, "props": props}
                refs[logical_id] = name
                attrs[(logical_id, "Arn")] = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}"
            elif resource["Type"] == "AWS::OpenSearchService::Domain":
                # moto does not run OpenSearch: the endpoint only has to be a plausible host
                domain = props.get("DomainName", logical_id.lower())
                attrs[(logical_id, "DomainEndpoint")] = f"search-{domain}-e2e.{REGION}.es.amazonaws.com"
                attrs[(logical_id, "Arn")] = f"arn:aws:es:{REGION}:{ACCOUNT}:domain/{domain}"
            elif resource["Type"] == "AWS::StepFunctions::StateMachine":
                name = f"focal-e2e-{uuid.uuid4().hex[:8]}"
                refs[logical_id] = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:{name}"
                attrs[(logical_id, "Name")] = name
            elif resource["Type"] == "AWS::Events::EventBus":
                refs[logical_id] = props["Name"]
                attrs[(logical_id, "Name")] = props["Name"]
                attrs[(logical_id, "Arn")] = f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/{props['Name']}"
        # SnapStart: the state machine invokes each stage's `live` alias (Ref → the alias ARN), which
        # dispatches to its function like the function's own ARN does.
        self.aliases: dict[str, str] = {}  # alias ARN → function logical id
        for logical_id, resource in resources.items():
            if resource["Type"] == "AWS::Lambda::Alias":
                target = resource["Properties"]["FunctionName"]["Ref"]
                arn = f"{self.functions[target]['arn']}:{resource['Properties']['Name']}"
                refs[logical_id] = arn
                attrs[(logical_id, "Arn")] = arn
                self.aliases[arn] = target
        self.refs, self.attrs = refs, attrs
        self.event_buses = [r["Properties"]["Name"] for r in resources.values() if r["Type"] == "AWS::Events::EventBus"]

        # Every state machine of the template (logical id → name, ARN, type, resolved definition); the
        # turn pipeline is the EXPRESS one (`state_machine_*`, `definition`, `run`), others are started by name.
        self.machines: dict[str, dict[str, Any]] = {}
        for lid, r in resources.items():
            if r["Type"] == "AWS::StepFunctions::StateMachine":
                definition_string = resolve(r["Properties"]["DefinitionString"], refs, attrs)
                self.machines[lid] = {"name": attrs[(lid, "Name")], "arn": refs[lid],
                                      "type": r["Properties"].get("StateMachineType", "STANDARD"),
                                      "definition_string": definition_string,
                                      "definition": json.loads(definition_string)}
        express = [lid for lid, m in self.machines.items() if m["type"] == "EXPRESS"]
        assert len(express) == 1, f"expected one EXPRESS (turn) state machine, found {len(express)}"
        self.state_machine_logical_id = express[0]
        machine = self.machines[express[0]]
        self.state_machine_type = machine["type"]
        self.definition_string: str = machine["definition_string"]
        self.definition: dict[str, Any] = machine["definition"]

        self.by_name = {f["name"]: f for f in self.functions.values()}
        self.by_arn = {f["arn"]: f for f in self.functions.values()}
        self.by_arn.update({arn: self.functions[lid] for arn, lid in self.aliases.items()})
        self.overrides: dict[str, Handler] = {}  # handler path → replacement
        self.invocations: list[Invocation] = []
        self.unknown_functions: list[str] = []
        self.state_machine_arn: str | None = None

    # --- what the template says ----------------------------------------------------------
    def task_handlers(self) -> dict[str, str]:
        """State name → handler path, for every Task state of the definition."""
        out = {}
        for state_name, state in self.definition["States"].items():
            if state["Type"] == "Task":
                out[state_name] = self.by_arn[state["Resource"]]["handler"]
        return out

    def environment_of(self, handler_path: str) -> dict[str, str]:
        """The (resolved) environment the template gives the function with this handler."""
        for fn in self.functions.values():
            if fn["handler"] == handler_path:
                env = fn["props"].get("Environment", {}).get("Variables", {})
                return {k: str(resolve(v, self.refs, self.attrs)) for k, v in env.items()}
        raise KeyError(handler_path)

    def table_name(self, logical_prefix: str) -> str:
        matches = [t["name"] for lid, t in self.tables.items() if lid.startswith(logical_prefix)]
        assert len(matches) == 1, (logical_prefix, list(self.tables))
        return matches[0]

    # --- dispatch --------------------------------------------------------------------------
    def override(self, handler_path: str, replacement: Handler) -> None:
        self.overrides[handler_path] = replacement

    def handler_for(self, handler_path: str) -> Handler:
        return self.overrides.get(handler_path) or import_handler(handler_path)

    def invoke(self, function_name: str, body: Any, response_headers: dict[str, str]) -> bytes:
        key = function_name if function_name in self.by_name else function_name.split(":function:")[-1]
        fn = self.by_name.get(key.split(":")[0])
        if fn is None:
            self.unknown_functions.append(function_name)
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps({"errorType": "ResourceNotFound", "errorMessage": function_name}).encode()
        handler_path = fn["handler"]
        if isinstance(body, bytes):
            body = body.decode("utf-8")
        event = json.loads(body) if body else {}
        try:
            result = self.handler_for(handler_path)(event, FakeContext(fn["name"], invoked_function_arn=fn["arn"]))
            payload = json.dumps(result)
        except Exception as exc:  # the Lambda runtime's "Unhandled" error
            self.invocations.append(Invocation(fn["name"], handler_path, ok=False, error=type(exc).__name__))
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps({"errorType": type(exc).__name__, "errorMessage": str(exc)}).encode()
        self.invocations.append(Invocation(fn["name"], handler_path, ok=True))
        return payload.encode()

    def install(self, monkeypatch) -> None:
        from moto.awslambda_simple.models import LambdaSimpleBackend

        harness = self

        def invoke(backend, function_name, qualifier, body, headers, response_headers):  # noqa: ARG001
            return harness.invoke(function_name, body, response_headers)

        monkeypatch.setattr(LambdaSimpleBackend, "invoke", invoke)

    # --- moto resources ---------------------------------------------------------------------
    def create_tables(self, client) -> None:
        """Create every table of the template from its own key schema / TTL properties."""
        for table in self.tables.values():
            props = table["props"]
            client.create_table(
                TableName=table["name"],
                KeySchema=props["KeySchema"],
                AttributeDefinitions=props["AttributeDefinitions"],
                BillingMode=props.get("BillingMode", "PAY_PER_REQUEST"),
            )
            ttl = props.get("TimeToLiveSpecification")
            if ttl and ttl.get("Enabled"):
                client.update_time_to_live(
                    TableName=table["name"],
                    TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl["AttributeName"]},
                )

    def create_functions_and_state_machine(self) -> str:
        iam = boto3.client("iam", region_name=REGION)
        role_arn = iam.create_role(
            RoleName=f"focal-e2e-{uuid.uuid4().hex[:8]}",
            AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": []}),
        )["Role"]["Arn"]
        lam = boto3.client("lambda", region_name=REGION)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("placeholder.py", "# code runs in-process, see tests/e2e/harness.py\n")
        for fn in self.functions.values():
            props = fn["props"]
            lam.create_function(
                FunctionName=fn["name"],
                Runtime=props["Runtime"],
                Role=role_arn,
                Handler=fn["handler"],
                Code={"ZipFile": buf.getvalue()},
                Timeout=props.get("Timeout", 3),
                MemorySize=props.get("MemorySize", 128),
            )
        events = boto3.client("events", region_name=REGION)
        for bus in self.event_buses:
            events.create_event_bus(Name=bus)
        sfn = boto3.client("stepfunctions", region_name=REGION)
        for machine in self.machines.values():
            arn = sfn.create_state_machine(
                name=machine["name"],
                definition=machine["definition_string"],
                roleArn=role_arn,
                type=machine["type"],
            )["stateMachineArn"]
            assert arn == machine["arn"], (arn, machine["arn"])
        self.state_machine_arn = self.machines[self.state_machine_logical_id]["arn"]
        return self.state_machine_arn

    def machine(self, logical_prefix: str) -> dict[str, Any]:
        """The state machine whose logical id starts with this prefix."""
        matches = [m for lid, m in self.machines.items() if lid.startswith(logical_prefix)]
        assert len(matches) == 1, (logical_prefix, list(self.machines))
        return matches[0]

    def wait_for(self, execution_arn: str, timeout_s: float = 60.0) -> dict[str, Any]:
        """Poll one execution until it is no longer RUNNING; its status, error and parsed output."""
        sfn = boto3.client("stepfunctions", region_name=REGION)
        deadline = time.monotonic() + timeout_s
        while (desc := sfn.describe_execution(executionArn=execution_arn))["status"] == "RUNNING":
            if time.monotonic() > deadline:
                raise TimeoutError(f"execution still RUNNING after {timeout_s}s")
            time.sleep(0.02)
        out = {"status": desc["status"], "error": desc.get("error"), "cause": desc.get("cause")}
        out["output"] = json.loads(desc["output"]) if desc.get("output") else None
        return out

    def run(self, execution_input: dict[str, Any], timeout_s: float = 60.0) -> dict[str, Any]:
        """Start one execution (unique name) and poll until it is no longer RUNNING."""
        sfn = boto3.client("stepfunctions", region_name=REGION)
        arn = sfn.start_execution(
            stateMachineArn=self.state_machine_arn,
            name=f"turn-{uuid.uuid4().hex}",
            input=json.dumps(execution_input),
        )["executionArn"]
        return self.wait_for(arn, timeout_s)
