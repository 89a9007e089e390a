"""Each function's AWS calls, made on its real code paths under moto, are allowed by its role in the template.

moto enforces no IAM: a permission missing from a role shows only in a real account (AccessDenied on a
customer's turn). Here every function of the stack runs its code paths — publishing an agent, conversations
through the state machine (tools, a regenerated draft, a repeated turn id, a failed stage into the fallback),
an approval approved for a customer with a stored profile, an approval that times out, the authorizer with
a customer token — while every AWS call is recorded per function (tests/e2e/iam_check.py) and evaluated
against that function's IAM statements in the synthesized template (action, resource, leading keys).
"""

from __future__ import annotations

import uuid

import pytest

from harness import REGION
from iam_check import Recorder, RecordingOpenSearch, RolePolicies, acting_as, denied
from test_e2e_approval import SIMILARITY_YES, approvals, post_approval  # noqa: F401 - the pytest fixture
from test_e2e_conversation import (  # noqa: F401 - world: the pytest fixture
    AGENT,
    RETAIL_YAML,
    TENANT,
    Conversation,
    _reset_tools,
    publish,
    world,
)

pytestmark = pytest.mark.slow
CUSTOMER = "c-100"


@pytest.fixture
def recorded(approvals, monkeypatch):  # noqa: F811 - the pytest fixture imported above
    """The approvals world (tables, functions, state machines, the agent published) with every AWS call recorded."""
    import focal.wiring

    setup = approvals
    chat, _, _ = setup("iam-setup")  # the world's own harness, reached through one Approvals helper
    harness = chat.harness
    recorder = Recorder(harness)
    recorder.install(monkeypatch)
    index = focal.wiring.deps_from_env().rule_index
    domain = next(r["Properties"]["DomainName"] for r in harness.template["Resources"].values()
                  if r["Type"] == "AWS::OpenSearchService::Domain")
    monkeypatch.setattr(index, "client", RecordingOpenSearch(index.client, recorder, domain))
    return harness, recorder, setup


def _store_profile(harness) -> None:
    """A customer with a stored profile (not a premium member), as the profile store holds it."""
    from focal.adapters.dynamodb_store import DynamoProfileStore
    from focal.models.session import CustomerProfile

    DynamoProfileStore(harness.table_name("ProfilesTable")).save(CustomerProfile(
        tenant_id=TENANT, agent_id=AGENT, customer_id=CUSTOMER, fields={"is_premium": False}))


def _authorize(harness, monkeypatch) -> None:
    """The authorizer with an API key and a customer token, as API Gateway calls it."""
    import boto3

    from focal import customer_tokens
    from focal.adapters.api_keys import DynamoApiKeyStore
    from handlers import authorizer

    table = harness.table_name("ApiKeysTable")
    monkeypatch.setenv("FOCAL_API_KEYS_TABLE", table)
    key = DynamoApiKeyStore(table).issue(TENANT, scopes=("chat",), trusted_backend=False)
    secret = "s" * 32
    boto3.client("secretsmanager", region_name=REGION).create_secret(
        Name=f"focal/{TENANT}/customer_token_secret", SecretString=secret)
    authorizer.reset()
    arn = f"arn:aws:execute-api:{REGION}:123456789012:api/live/POST/v1/agents/{AGENT}/sessions/s1/turns"
    headers = {"x-api-key": key, "x-focal-customer-token": customer_tokens.issue(CUSTOMER, TENANT, secret)}
    with acting_as("handlers.authorizer.handler"):
        answer = authorizer.handler({"type": "REQUEST", "methodArn": arn, "headers": headers}, None)
    assert answer["policyDocument"]["Statement"][0]["Effect"] == "Allow"
    authorizer.reset()


def test_every_aws_call_of_every_function_is_allowed_by_its_role(recorded, monkeypatch):
    harness, recorder, setup = recorded
    _store_profile(harness)

    # Publishing: a changed rule is embedded and written to the index, the agent stored.
    text = RETAIL_YAML.read_text(encoding="utf-8")
    changed = text.replace("a credit card or another payment method?", "a credit card or some other payment method?")
    assert changed != text
    with acting_as("handlers.agents.handler"):
        assert publish(TENANT, changed)["indexed"]["embedded"] >= 1

    # Turns: tools run, a draft regenerated, a repeated turn id answered from the idempotency store.
    chat = Conversation(harness, harness_ddb(), "iam-refund", customer_id=CUSTOMER)
    for message in ("I want a refund for my order", "It's A1001", "yes please"):
        assert chat.say(message)["success"] is True
    over_cap = Conversation(harness, harness_ddb(), "iam-cap", customer_id=CUSTOMER)
    capped = over_cap.say("I want a refund for order A1002")
    assert capped["enforcement"]["regenerations"] == 1, capped
    request = {"tenant_id": TENANT, "agent_id": AGENT, "session_id": "iam-repeat", "customer_id": CUSTOMER,
               "turn_id": f"repeat-{uuid.uuid4().hex[:6]}", "message": "Hi there"}
    first, again = harness.run({"request": request}), harness.run({"request": request})
    assert first["status"] == again["status"] == "SUCCEEDED" and again["output"]["turn_id"] == request["turn_id"]

    # A failing stage: the fallback records the turn.
    def boom(event, context):
        raise RuntimeError("generate is down")

    harness.override("handlers.generate.handler", boom)
    assert Conversation(harness, harness_ddb(), "iam-fail", customer_id=CUSTOMER).say("Hi there")["execution_path"] == "fallback"
    del harness.overrides["handlers.generate.handler"]

    # An approval approved for the customer with a stored profile: the endpoint runs tools → persist.
    _forget_refunds()
    approving, tools, _ = setup("iam-approve")
    approval_id = approving.request_approval()
    approving.wait_for_token(approval_id)
    with acting_as("handlers.approvals.handler"):
        status, body = post_approval(approval_id, "approve")
    assert status == 200 and body["approval_state"] == "approved", body
    assert harness.wait_for(approving.execution_arn(approval_id))["status"] == "SUCCEEDED"

    # An approval nobody answers: the workflow's timeout function expires it.
    _forget_refunds()
    waiting, _, _ = setup("iam-timeout", "approval:\n  timeout_seconds: 1\n")
    expiring = waiting.request_approval()
    assert harness.wait_for(waiting.execution_arn(expiring), timeout_s=30)["output"]["expiry"]["state"] == "expired"

    _authorize(harness, monkeypatch)

    assert {r.function for r in recorder.calls if r.action.startswith("es:")} == {
        "handlers.retrieve.handler", "handlers.agents.handler"}  # the rule index: searched, and written on publish
    exercised = {r.function for r in recorder.calls}
    assert exercised == {fn["handler"] for fn in harness.functions.values()}, "a function whose code path did not run"
    policies = RolePolicies(harness)
    refused = denied(recorder, policies)
    assert refused == [], "\n".join(refused)


def _forget_refunds() -> None:
    import focal.wiring

    _reset_tools(focal.wiring.deps_from_env().configs.get_agent(TENANT, AGENT))


def harness_ddb():
    import boto3

    return boto3.client("dynamodb", region_name=REGION)



# --- the checker itself ------------------------------------------------------------------------
def _statement(**fields):
    return {"Effect": "Allow", "Action": ["dynamodb:GetItem"], "Resource": "arn:aws:dynamodb:r:1:table/T", **fields}


@pytest.mark.parametrize("statement,allowed", [
    (_statement(), True),
    (_statement(Action="dynamodb:*"), True),
    (_statement(Action=["dynamodb:PutItem"]), False),
    (_statement(Resource="arn:aws:dynamodb:r:1:table/Other"), False),
    (_statement(Condition={"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["TENANT#acme#*"]}}), True),
    (_statement(Condition={"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["TENANT#globex#*"]}}), False),
    (_statement(Condition={"StringEquals": {"aws:SourceVpc": "vpc-1"}}), False),  # unknown: never assumed to hold
])
def test_the_checker_matches_action_resource_and_leading_keys(statement, allowed):
    from iam_check import IamRequest, _matches

    request = IamRequest("h", "dynamodb:GetItem", "arn:aws:dynamodb:r:1:table/T", ("TENANT#acme#AGENT#a",))
    assert _matches(statement, request) is allowed


def test_an_explicit_deny_wins():
    from iam_check import IamRequest, RolePolicies

    policies = RolePolicies.__new__(RolePolicies)
    secret = "arn:aws:secretsmanager:r:1:secret:focal/acme/customer_token_secret-AbCdEf"
    policies.statements = {"h": [
        {"Effect": "Allow", "Action": "secretsmanager:GetSecretValue", "Resource": "arn:aws:secretsmanager:r:1:secret:focal/acme/*"},
        {"Effect": "Deny", "Action": "secretsmanager:GetSecretValue",
         "Resource": "arn:aws:secretsmanager:r:1:secret:focal/acme/customer_token_secret*"}]}
    assert not policies.allows(IamRequest("h", "secretsmanager:GetSecretValue", secret))
    assert policies.allows(IamRequest("h", "secretsmanager:GetSecretValue", secret.replace("customer_token_secret", "crm")))
