"""Assertions on the synthesized tenant stack (one synth per session, bundling skipped)."""

from __future__ import annotations

import json
import re

import pytest
from aws_cdk.assertions import Match

from focal.turn.definition import FALLBACK_HANDLER, STAGES
from infra_helpers import definition_with_placeholders, of_type
from infra_helpers import method as api_method

SERVICE_ERRORS = [
    "Lambda.ServiceException",
    "Lambda.AWSLambdaException",
    "Lambda.SdkClientException",
    "Lambda.TooManyRequestsException",
]
EMBEDDING_STAGES = {"sensor", "retrieve", "enforce"}


def model_calling_stages() -> frozenset[str]:
    """Derived from the engine's imports (focal_infra/model_stages.py), never listed by hand."""
    from focal_infra.model_stages import model_calling_stages as derive

    return derive()


# --- helpers -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def functions(resources):
    return of_type(resources, "AWS::Lambda::Function")


@pytest.fixture(scope="module")
def function_by_handler(functions):
    out = {}
    for lid, fn in functions.items():
        handler = fn["Properties"]["Handler"]
        assert handler not in out, f"two functions share handler {handler}"
        out[handler] = (lid, fn)
    return out


@pytest.fixture(scope="module")
def state_machine(resources):
    machines = of_type(resources, "AWS::StepFunctions::StateMachine")
    assert len(machines) == 2  # the turn pipeline (EXPRESS) and the approval workflow (STANDARD)
    return resources[logical_id_of(resources, "TurnStateMachine")]


@pytest.fixture(scope="module")
def definition(state_machine):
    return definition_with_placeholders(state_machine["Properties"]["DefinitionString"])


def logical_id_of(resources, prefix: str) -> str:
    matches = [lid for lid in resources if re.fullmatch(prefix + r"[0-9A-F]{8}", lid)]
    assert len(matches) == 1, (prefix, matches)
    return matches[0]


def alias_of(resources, function_logical_id: str) -> str:
    """The logical id of the function's `live` alias (the SnapStart-published version it points to)."""
    (alias,) = [lid for lid, r in of_type(resources, "AWS::Lambda::Alias").items()
                if r["Properties"]["FunctionName"] == {"Ref": function_logical_id}]
    props = resources[alias]["Properties"]
    assert props["Name"] == "live"
    version = props["FunctionVersion"]["Fn::GetAtt"][0]
    assert resources[version]["Type"] == "AWS::Lambda::Version"
    assert resources[version]["Properties"]["FunctionName"] == {"Ref": function_logical_id}
    return alias


def role_statements(resources, function_logical_id: str) -> list[dict]:
    role_ref = resources[function_logical_id]["Properties"]["Role"]["Fn::GetAtt"][0]
    statements = []
    for policy in of_type(resources, "AWS::IAM::Policy").values():
        if {"Ref": role_ref} in policy["Properties"]["Roles"]:
            statements += policy["Properties"]["PolicyDocument"]["Statement"]
    return statements


def dynamodb_grants(statements) -> dict[str, set[str]]:
    """table logical id → DynamoDB actions granted on it."""
    out: dict[str, set[str]] = {}
    for st in statements:
        actions = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
        if not any(a.startswith("dynamodb:") for a in actions):
            continue
        targets = st["Resource"] if isinstance(st["Resource"], list) else [st["Resource"]]
        for target in targets:
            assert target != "*", f"DynamoDB actions on '*': {st}"
            table = target["Fn::GetAtt"][0] if "Fn::GetAtt" in target else json.dumps(target)
            out.setdefault(table, set()).update(a for a in actions if a.startswith("dynamodb:"))
    return out


# --- the state machine ------------------------------------------------------------------------
def test_state_machine_is_express_traced_and_logs_errors_without_data(template, resources):
    template.has_resource_properties(
        "AWS::StepFunctions::StateMachine",
        {
            "StateMachineType": "EXPRESS",
            "TracingConfiguration": {"Enabled": True},
            "LoggingConfiguration": {
                "Level": "ERROR",
                "IncludeExecutionData": False,
                "Destinations": [{"CloudWatchLogsLogGroup": {"LogGroupArn": Match.any_value()}}],
            },
        },
    )


def test_one_task_per_stage_plus_fallback_each_invoking_its_handlers_snapstart_alias(resources, definition,
                                                                                    function_by_handler):
    task_states = {name: s for name, s in definition["States"].items() if s["Type"] == "Task"}
    assert set(task_states) == {s.name for s in STAGES} | {"fallback"}
    for name, handler in [(s.name, s.handler) for s in STAGES] + [("fallback", FALLBACK_HANDLER)]:
        lid, fn = function_by_handler[handler]
        assert task_states[name]["Resource"] == f"<Ref {alias_of(resources, lid)}>", name
        assert fn["Properties"]["SnapStart"] == {"ApplyOn": "PublishedVersions"}, name


def test_default_path_follows_the_stage_order(definition):
    """Following Next / Choice.Default from StartAt visits the stages exactly in STAGES order."""
    states = definition["States"]
    visited, name = [], definition["StartAt"]
    while True:
        state = states[name]
        if state["Type"] == "Task":
            visited.append(name)
        if state.get("End") or state["Type"] == "Succeed":
            break
        name = state["Default"] if state["Type"] == "Choice" else state["Next"]
    assert visited == [s.name for s in STAGES]
    assert states[name]["Type"] == "Succeed" and states[name]["OutputPath"] == "$.result"


def test_a_choice_follows_each_stage_with_jumps_and_only_those(definition):
    states = definition["States"]
    names = [s.name for s in STAGES]
    for index, spec in enumerate(STAGES):
        nxt = states[spec.name]["Next"]
        if not spec.jumps:
            expected = names[index + 1] if index + 1 < len(names) else None
            assert nxt == expected or states[nxt]["Type"] == "Succeed", spec.name
            continue
        choice = states[nxt]
        assert choice["Type"] == "Choice"
        assert choice["Default"] == (names[index + 1] if index + 1 < len(names) else "done")
        targets = {}
        for rule in choice["Choices"]:
            conds = rule["And"]
            assert {"Variable": "$.control.next", "IsPresent": True} in conds
            assert {"Variable": "$.control.next", "IsString": True} in conds
            (equals,) = [c["StringEquals"] for c in conds if "StringEquals" in c]
            targets[equals] = rule["Next"]
        assert targets == {t: t for t in spec.jumps}
    choices = [s for s in states.values() if s["Type"] == "Choice"]
    assert len(choices) == sum(1 for s in STAGES if s.jumps)


def test_sensor_can_exit_to_persist_and_enforce_loops_to_generate(definition):
    """The two control-flow edges the design names, spelled out."""
    states = definition["States"]
    sensor_targets = {r["Next"] for r in states[states["sensor"]["Next"]]["Choices"]}
    enforce_targets = {r["Next"] for r in states[states["enforce"]["Next"]]["Choices"]}
    assert sensor_targets == {"persist"}
    assert enforce_targets == {"generate"}


def test_every_stage_task_has_the_tight_retry_and_the_catch(definition):
    states = definition["States"]
    for spec in STAGES:
        task = states[spec.name]
        assert task["Retry"] == [
            {
                "ErrorEquals": SERVICE_ERRORS,
                "IntervalSeconds": 1,
                "MaxAttempts": 2,
                "BackoffRate": 2,
                "JitterStrategy": "FULL",
            }
        ], spec.name
        assert task["Catch"] == [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.caught", "Next": "fallback"}]
        assert "Parameters" not in task  # payload response only: the TurnState in, the TurnState out
    fallback = states["fallback"]
    assert "Catch" not in fallback
    assert fallback["Retry"][0]["ErrorEquals"] == SERVICE_ERRORS
    assert states[fallback["Next"]] == {"Type": "Succeed", "OutputPath": "$.result"}


# --- functions and layers ----------------------------------------------------------------------
def test_python312_functions_sharing_one_code_asset(functions):
    # stages + fallback + authorizer + publish + approvals endpoint + approval-wait + approval-timeout
    assert len(functions) == len(STAGES) + 6
    keys = set()
    for fn in functions.values():
        props = fn["Properties"]
        assert props["Runtime"] == "python3.12"
        assert props["Architectures"] == ["x86_64"]
        assert props["Timeout"] <= 29
        assert props["TracingConfig"] == {"Mode": "Active"}
        keys.add(json.dumps(props["Code"], sort_keys=True))
    assert len(keys) == 1, "all functions must use the same code asset"


def test_memory_sizes(function_by_handler):
    """Embedding and model-calling stages import onnxruntime / litellm at init: 1,024 MB at least (CPU share)."""
    for spec in STAGES:
        memory = function_by_handler[spec.handler][1]["Properties"]["MemorySize"]
        if spec.name in EMBEDDING_STAGES | model_calling_stages():
            assert 1024 <= memory <= 1769, spec.name
        else:
            assert 512 <= memory <= 1024, spec.name
    for handler in ("handlers.approval_wait.handler", "handlers.approval_timeout.handler"):
        assert function_by_handler[handler][1]["Properties"]["MemorySize"] >= 1024, handler


def test_layers_attached_where_needed(resources, function_by_handler):
    deps, models, llm, auth = (logical_id_of(resources, p) for p in ("DepsLayer", "ModelsLayer", "LlmLayer", "AuthLayer"))
    for lid in (deps, models, llm, auth):
        assert resources[lid]["Properties"]["CompatibleRuntimes"] == ["python3.12"]
    for spec in STAGES:
        layers = [ref["Ref"] for ref in function_by_handler[spec.handler][1]["Properties"]["Layers"]]
        assert deps in layers and auth in layers, spec.name  # CloudFormation order: by logical id (cdk.json flags)
        assert (models in layers) == (spec.name in EMBEDDING_STAGES), spec.name
        assert (llm in layers) == (spec.name in model_calling_stages()), spec.name
    fallback_layers = function_by_handler[FALLBACK_HANDLER][1]["Properties"]["Layers"]
    assert sorted(ref["Ref"] for ref in fallback_layers) == sorted([deps, auth])
    # PyJWT (customer tokens) on every function; the authorizer carries nothing else (boto3 is the runtime's)
    assert function_by_handler["handlers.authorizer.handler"][1]["Properties"]["Layers"] == [{"Ref": auth}]
    for handler, (_, fn) in function_by_handler.items():
        assert {"Ref": auth} in fn["Properties"]["Layers"], handler


def test_stage_environment(resources, function_by_handler):
    tables = {p: logical_id_of(resources, p) for p in ("SessionsTable", "ProfilesTable", "TurnsTable", "AgentConfigTable")}
    expected = {
        "FOCAL_STORE": "dynamodb",
        "FOCAL_CONFIG_SOURCE": "dynamodb",
        "FOCAL_SESSIONS_TABLE": {"Ref": tables["SessionsTable"]},
        "FOCAL_PROFILES_TABLE": {"Ref": tables["ProfilesTable"]},
        "FOCAL_TURNS_TABLE": {"Ref": tables["TurnsTable"]},
        "FOCAL_CONFIG_TABLE": {"Ref": tables["AgentConfigTable"]},
        "FOCAL_AGENTS_ROOT": "agents",
        "FOCAL_MODEL_DIR": "/opt/models",
        "POWERTOOLS_SERVICE_NAME": "focal",
        "POWERTOOLS_METRICS_NAMESPACE": "Focal/acme",  # one dashboard per tenant (operations.py)
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    for handler in [s.handler for s in STAGES] + [FALLBACK_HANDLER]:
        env = function_by_handler[handler][1]["Properties"]["Environment"]["Variables"]
        assert {k: env.get(k) for k in expected} == expected, handler
        assert "FOCAL_MODEL" not in env  # no provider configured by default: offline components


def test_every_function_logs_to_a_group_kept_one_month(resources, functions):
    for lid, fn in functions.items():
        group = fn["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]
        assert resources[group]["Type"] == "AWS::Logs::LogGroup", lid
        assert resources[group]["Properties"]["RetentionInDays"] == 30, lid
    for group in of_type(resources, "AWS::Logs::LogGroup").values():
        assert group["Properties"]["RetentionInDays"] == 30


# --- tables --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "prefix,keys,ttl",
    [
        ("SessionsTable", ["pk"], True),
        ("ProfilesTable", ["pk"], False),
        ("TurnsTable", ["pk", "sk"], True),
        ("AgentConfigTable", ["pk"], False),
        ("ApiKeysTable", ["pk"], False),
        ("IdempotencyTable", ["pk"], True),  # turn ids (focal.turn.idempotency)
    ],
)
def test_tables(resources, prefix, keys, ttl):
    table = resources[logical_id_of(resources, prefix)]
    props = table["Properties"]
    assert [k["AttributeName"] for k in props["KeySchema"]] == keys
    assert all(a["AttributeType"] == "S" for a in props["AttributeDefinitions"])
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert props["SSESpecification"] == {"SSEEnabled": True}
    # Kept on destroy and replacement; deleted when the stack's first create rolls back (a retry starts clean).
    assert table["DeletionPolicy"] == "RetainExceptOnCreate" and table["UpdateReplacePolicy"] == "Retain"
    if ttl:
        assert props["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    else:
        assert "TimeToLiveSpecification" not in props


def test_exactly_six_tables(resources):
    assert len(of_type(resources, "AWS::DynamoDB::Table")) == 6


# --- OpenSearch ----------------------------------------------------------------------------------
def test_opensearch_domain(resources, function_by_handler):
    (domain,) = of_type(resources, "AWS::OpenSearchService::Domain").values()
    props = domain["Properties"]
    assert re.fullmatch(r"OpenSearch_2\.\d+", props["EngineVersion"])
    assert props["EncryptionAtRestOptions"] == {"Enabled": True}
    assert props["NodeToNodeEncryptionOptions"] == {"Enabled": True}
    assert props["DomainEndpointOptions"]["EnforceHTTPS"] is True
    assert props["ClusterConfig"]["InstanceCount"] == 1
    # Derived data (rebuilt on publish): deleted with the stack, so its name is free for a redeploy or retry.
    assert domain["DeletionPolicy"] == "Delete" and props["DomainName"] == "focal-acme"
    role = {h: function_by_handler[h][1]["Properties"]["Role"]["Fn::GetAtt"][0]
            for h in ("handlers.retrieve.handler", "handlers.agents.handler")}
    statements = props["AccessPolicies"]["Statement"]
    assert [s["Principal"] for s in statements] == [{"AWS": {"Fn::GetAtt": [role["handlers.retrieve.handler"], "Arn"]}},
                                                    {"AWS": {"Fn::GetAtt": [role["handlers.agents.handler"], "Arn"]}}]
    read, write = statements
    assert read["Effect"] == "Allow" and set(read["Action"]) == {"es:ESHttpGet", "es:ESHttpHead", "es:ESHttpPost"}
    assert write["Effect"] == "Allow" and set(write["Action"]) == set(read["Action"]) | {"es:ESHttpPut"}


# --- IAM -------------------------------------------------------------------------------------------
READS = {"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query"}
WRITES = {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"}
GET, PUT, UPDATE, QUERY = "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:Query"
# persist writes the turn, and masks earlier turns again once a card typed across messages is complete
REMASKS = {PUT, GET, QUERY, UPDATE}


# Derived from the code (focal_infra/port_access.py, port_grants.py) and checked against the calls each function
# really makes by tests/e2e/test_e2e_iam.py; spelled out here as the readable least-privilege picture.
@pytest.mark.parametrize(
    "handler,expected",
    [
        # idempotency: the sensor marks a turn id in progress (conditional put) and reads a repeat's answer
        ("handlers.sensor.handler", {"SessionsTable": {GET}, "ProfilesTable": {GET}, "AgentConfigTable": {GET},
                                     "IdempotencyTable": {GET, PUT}}),
        ("handlers.retrieve.handler", {"TurnsTable": {QUERY}, "AgentConfigTable": {GET}}),  # episodes
        ("handlers.route.handler", {"AgentConfigTable": {GET}}),
        # tools: claims the session before a side effect (put), and approval requests (keys TENANT#acme#APPROVAL#*)
        ("handlers.tools.handler", {"AgentConfigTable": {GET}, "SessionsTable": {GET, PUT, UPDATE}}),
        ("handlers.generate.handler", {"AgentConfigTable": {GET}}),
        ("handlers.enforce.handler", {"AgentConfigTable": {GET}}),
        ("handlers.persist.handler",
         {"SessionsTable": {GET, PUT}, "ProfilesTable": {PUT}, "TurnsTable": REMASKS, "AgentConfigTable": {GET},
          "IdempotencyTable": {UPDATE}}),
        (FALLBACK_HANDLER, {"SessionsTable": {GET, PUT}, "TurnsTable": REMASKS, "AgentConfigTable": {GET},
                            "IdempotencyTable": {UPDATE}}),
        ("handlers.agents.handler", {"AgentConfigTable": {PUT}}),
        ("handlers.authorizer.handler", {"ApiKeysTable": {GET}}),
        # the approval endpoint runs tools → generate → enforce → persist for the approved action
        ("handlers.approvals.handler",
         {"SessionsTable": {GET, PUT, UPDATE}, "ProfilesTable": {GET, PUT}, "TurnsTable": REMASKS,
          "AgentConfigTable": {GET}, "IdempotencyTable": {UPDATE}}),
        ("handlers.approval_wait.handler", {"SessionsTable": {UPDATE}}),
        ("handlers.approval_timeout.handler", {"SessionsTable": {GET, UPDATE}}),
    ],
)
def test_table_access_is_least_privilege(resources, function_by_handler, handler, expected):
    lid, _ = function_by_handler[handler]
    grants = dynamodb_grants(role_statements(resources, lid))
    expected_by_lid = {logical_id_of(resources, prefix): actions for prefix, actions in expected.items()}
    assert grants == expected_by_lid


TENANT_ITEMS = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["TENANT#acme#*"]}}
APPROVAL_ITEMS = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["TENANT#acme#APPROVAL#*"]}}
KEYED_ACTIONS = READS | WRITES | {"dynamodb:DeleteItem"}  # each names its keys, so LeadingKeys is always set


def test_every_table_grant_is_limited_to_this_tenants_leading_keys(resources, function_by_handler):
    """Every DynamoDB statement of every function carries `dynamodb:LeadingKeys` = `TENANT#acme#*` (or
    `TENANT#acme#APPROVAL#*`), on key-addressed actions only (no Scan: ForAllValues holds on an empty
    key set). The one exception is the authorizer's GetItem on the API-keys table, keyed by the key's
    hash (the key is what names the tenant)."""
    api_keys = logical_id_of(resources, "ApiKeysTable")
    sessions = logical_id_of(resources, "SessionsTable")
    checked = 0
    for handler, (lid, _) in function_by_handler.items():
        for st in role_statements(resources, lid):
            actions = set(st["Action"] if isinstance(st["Action"], list) else [st["Action"]])
            if not any(a.startswith("dynamodb:") for a in actions):
                continue
            targets = st["Resource"] if isinstance(st["Resource"], list) else [st["Resource"]]
            if any(api_keys in json.dumps(target) for target in targets):
                assert handler == "handlers.authorizer.handler", handler
                assert st == {"Action": "dynamodb:GetItem", "Effect": "Allow",
                              "Resource": {"Fn::GetAtt": [api_keys, "Arn"]}}
                continue
            assert actions <= KEYED_ACTIONS, (handler, actions)
            assert st.get("Condition") in (TENANT_ITEMS, APPROVAL_ITEMS), (handler, st)
            if st["Condition"] == APPROVAL_ITEMS:
                assert targets == [{"Fn::GetAtt": [sessions, "Arn"]}], (handler, st)
            checked += 1
    assert checked >= len(function_by_handler) - 1


def test_retrieve_cannot_write_and_only_retrieve_and_publish_reach_opensearch(resources, function_by_handler):
    for handler, (lid, _) in function_by_handler.items():
        statements = role_statements(resources, lid)
        actions = {a for st in statements for a in (st["Action"] if isinstance(st["Action"], list) else [st["Action"]])}
        if handler == "handlers.retrieve.handler":
            assert "dynamodb:PutItem" not in actions
            assert {"es:ESHttpGet", "es:ESHttpPost"} <= actions
            assert not {a for a in actions if a.startswith("es:") and "Put" in a or a == "es:*"}
        elif handler == "handlers.agents.handler":
            assert {a for a in actions if a.startswith("es:")} == {"es:ESHttpGet", "es:ESHttpHead", "es:ESHttpPost",
                                                                 "es:ESHttpPut"}
        else:
            assert not {a for a in actions if a.startswith("es:")}, handler
        assert not {a for a in actions if a.endswith(":*") or a == "*"}, handler


def test_state_machine_may_invoke_only_the_pipeline_functions_live_aliases(resources, function_by_handler):
    role = resources[logical_id_of(resources, "TurnStateMachine")]["Properties"]["RoleArn"]["Fn::GetAtt"][0]
    invoked = []
    for policy in of_type(resources, "AWS::IAM::Policy").values():
        if {"Ref": role} in policy["Properties"]["Roles"]:
            for st in policy["Properties"]["PolicyDocument"]["Statement"]:
                if st["Action"] == "lambda:InvokeFunction":
                    invoked += st["Resource"]
    pipeline = [function_by_handler[h][0] for h in [s.handler for s in STAGES] + [FALLBACK_HANDLER]]
    assert sorted(invoked, key=json.dumps) == sorted(({"Ref": alias_of(resources, lid)} for lid in pipeline),
                                                     key=json.dumps)


# --- API -------------------------------------------------------------------------------------------
def test_turn_route_exists(resources):
    parts = {lid: r["Properties"] for lid, r in of_type(resources, "AWS::ApiGateway::Resource").items()}

    def path_of(lid):
        props = parts[lid]
        parent = props["ParentId"]
        prefix = "" if "Fn::GetAtt" in parent else path_of(parent["Ref"])
        return prefix + "/" + props["PathPart"]

    methods = {(m["Properties"]["HttpMethod"], path_of(m["Properties"]["ResourceId"]["Ref"]))
               for m in of_type(resources, "AWS::ApiGateway::Method").values()}
    assert methods == {("POST", "/v1/agents/{agent_id}/sessions/{session_id}/turns"),
                       ("PUT", "/v1/agents/{agent_id}"), ("POST", "/v1/approvals/{approval_id}")}


def test_publishing_goes_through_the_authorizer_to_the_publish_function(resources, function_by_handler):
    put = api_method(resources, "PUT")["Properties"]
    assert put["AuthorizationType"] == "CUSTOM" and "AuthorizerId" in put
    assert put["Integration"]["Type"] == "AWS_PROXY"
    publish_lid = function_by_handler["handlers.agents.handler"][0]
    assert publish_lid in json.dumps(put["Integration"]["Uri"])
    for handler in ("handlers.agents.handler", "handlers.retrieve.handler"):
        env = function_by_handler[handler][1]["Properties"]["Environment"]["Variables"]
        assert env["FOCAL_INDEX"] == "opensearch" and "FOCAL_OPENSEARCH_ENDPOINT" in env, handler
    others = [h for h in function_by_handler if h not in ("handlers.agents.handler", "handlers.retrieve.handler")]
    assert all("FOCAL_INDEX" not in (function_by_handler[h][1]["Properties"].get("Environment") or {}).get("Variables", {})
               for h in others)


def test_method_uses_the_lambda_authorizer_and_validates_the_body(resources, function_by_handler):
    method = api_method(resources, "POST", "turns")
    props = method["Properties"]
    assert props["AuthorizationType"] == "CUSTOM"
    (auth_lid, authorizer), = of_type(resources, "AWS::ApiGateway::Authorizer").items()
    assert props["AuthorizerId"] == {"Ref": auth_lid}
    assert authorizer["Properties"]["Type"] == "REQUEST"
    assert authorizer["Properties"]["AuthorizerResultTtlInSeconds"] == 0
    authorizer_lid, _ = function_by_handler["handlers.authorizer.handler"]
    assert {"Fn::GetAtt": [authorizer_lid, "Arn"]} in authorizer["Properties"]["AuthorizerUri"]["Fn::Join"][1]
    assert props["RequestValidatorId"]
    model = next(iter(of_type(resources, "AWS::ApiGateway::Model").values()))["Properties"]["Schema"]
    assert model["required"] == ["message"]
    assert "tenant_id" not in model["properties"]


def test_integration_starts_the_express_machine_synchronously(resources):
    method = api_method(resources, "POST", "turns")
    integration = method["Properties"]["Integration"]
    assert integration["Type"] == "AWS"
    uri = json.dumps(integration["Uri"])
    assert ":states:action/StartSyncExecution" in uri
    assert integration["PassthroughBehavior"] == "NEVER"
    # the API Gateway role may start only this state machine, synchronously
    role = integration["Credentials"]["Fn::GetAtt"][0]
    statements = [
        st
        for p in of_type(resources, "AWS::IAM::Policy").values()
        if {"Ref": role} in p["Properties"]["Roles"]
        for st in p["Properties"]["PolicyDocument"]["Statement"]
    ]
    machine = logical_id_of(resources, "TurnStateMachine")
    assert statements == [{"Action": "states:StartSyncExecution", "Effect": "Allow", "Resource": {"Ref": machine}}]


def _request_template(resources) -> str:
    method = api_method(resources, "POST", "turns")
    tpl = method["Properties"]["Integration"]["RequestTemplates"]["application/json"]
    if isinstance(tpl, dict):  # Fn::Join around the state machine ARN
        sep, parts = tpl["Fn::Join"]
        tpl = sep.join(p if isinstance(p, str) else "<ARN>" for p in parts)
    return tpl


def test_request_mapping(resources):
    tpl = _request_template(resources)
    # tenant from the authorizer context only
    assert "#set($raw_tenant_id = $context.authorizer.tenant_id)" in tpl
    assert "tenant_id" not in tpl.replace("$context.authorizer.tenant_id", "").replace("raw_tenant_id", "").replace(
        "v_tenant_id", ""
    ).replace('\\"tenant_id\\"', "")
    assert "#set($agentId = $input.params().path.get('agent_id'))" in tpl
    assert "#set($sessionId = $input.params().path.get('session_id'))" in tpl
    assert "#set($raw_agent_id = $agentId)" in tpl and "#set($raw_session_id = $sessionId)" in tpl
    assert "#set($raw_message = $input.path('$.message'))" in tpl
    assert '#if("$!customerId" == "")#set($customerId = "anonymous")#end' in tpl
    assert '#if("$!turnId" == "")#set($turnId = $context.requestId)#end' in tpl
    assert '"stateMachineArn": "<ARN>"' in tpl
    assert "$input.params().header.get('Idempotency-Key')" in tpl
    # the execution input is {"request": {...}} with exactly the TurnRequest fields, each escaped twice
    (inner,) = re.findall(r'"input": "(.*)"\n', tpl)
    fields = re.findall(r'\\"(\w+)\\": \\"\$v_(\w+)\\"', inner)
    assert [a for a, b in fields if a == b] == ["tenant_id", "agent_id", "session_id", "customer_id", "turn_id",
                                                "message"]
    for name, _ in fields:
        assert tpl.count(f"#set($v_{name} = $util.escapeJavaScript(") == 2, name
    from focal.models.turn import TurnRequest

    assert {name for name, _ in fields} == set(TurnRequest.model_fields)


def test_response_mapping_returns_the_output_or_a_structured_500(resources):
    method = api_method(resources, "POST", "turns")
    responses = {r["StatusCode"]: r for r in method["Properties"]["Integration"]["IntegrationResponses"]}
    ok = responses["200"]["ResponseTemplates"]["application/json"]
    assert '#if($status == "SUCCEEDED")' in ok and "\n$input.path('$.output')\n" in ok
    assert "#set($context.responseOverride.status = 500)" in ok
    assert "cause" not in ok  # never leak the failure cause to the caller
    assert {"400", "500"} <= set(responses)
    assert {r["StatusCode"] for r in method["Properties"]["MethodResponses"]} >= {"200", "400", "404", "409", "429", "500"}
