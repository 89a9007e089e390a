"""cdk-nag AwsSolutions on a tenant stack, and every finding Focal accepts, with its reason, in one place.

    checks(app)        register AwsSolutionsChecks on the app (synth then fails on any finding left)
    acknowledge(stack) acknowledge the accepted findings below on the constructs they concern

cdk-nag 3 reports through CDK's policy validation (`Validations.of(app).add_plugins`) and suppresses
through `Validations.of(construct).acknowledge(id, reason)`; one acknowledgment covers the construct
and its children, one finding id at a time (`AwsSolutions-IAM5[Resource::…]` names the resource).
Only infra/app.py (`make synth`, through focal_infra/synth_gate.py) and tests/infra/test_infra_nag.py apply
them: the template the other tests read is synthesized without cdk-nag.
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, App, Stack, Validations
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_stepfunctions as sfn
from cdk_nag import AwsSolutionsChecks
from constructs import IConstruct

from focal_infra import models_access
from focal_infra.acknowledged import Acknowledged
from focal_infra.assets import RUNTIME

MIN_REASON = 60  # characters; tests/infra/test_infra_nag.py holds every reason to it

XRAY = ("AwsSolutions-IAM5[Resource::*]",
        "X-Ray tracing (Tracing.ACTIVE / tracing_enabled): xray:PutTraceSegments, PutTelemetryRecords and "
        "GetSampling* support no resource-level permissions, so '*' is the only resource; the nag test checks "
        "that '*' carries X-Ray actions only.")
MACHINE_WILDCARD = ("AwsSolutions-IAM5[Resource::*]",
                    "X-Ray tracing and Step Functions logging: xray:PutTraceSegments/GetSampling* and the CloudWatch "
                    "Logs delivery calls (logs:CreateLogDelivery, GetLogDelivery, ListLogDeliveries, "
                    "DescribeLogGroups, ...) support no resource-level permissions; the nag test checks '*' carries "
                    "only these.")
RUNTIME_REASON = (f"{RUNTIME.name} on purpose: the deps, models and llm layers carry CPython-3.12 wheels "
                  "(onnxruntime, numpy, tokenizers built for that ABI and glibc), tested together; moving to a "
                  "newer runtime means rebuilding and re-testing the layers, not a flag.")
LOG_LEVEL_REASON = ("Logs at ERROR level without execution data on purpose: execution data is customer text, "
                    "which must never reach logs; every execution is traced in X-Ray and each turn's record "
                    "holds its per-stage trace, so ALL would add cost, not insight.")
FUNCTION_VERSIONS = ("Step Functions' LambdaInvoke grant: the one named function and its versions/aliases "
                     "(`<arn>:*` qualifiers), no other function.")
DOMAIN = {
    "AwsSolutions-OS1": "Not in a VPC: the stage functions run outside a VPC (no NAT for model providers); "
                        "the domain accepts only SigV4-signed HTTPS (TLS 1.2) calls from the retrieve and publish "
                        "roles named in its resource policy.",
    "AwsSolutions-OS3": "Access is by IAM principal (the retrieve and publish roles in the domain's resource "
                        "policy), not by IP: Lambda has no fixed source addresses to allowlist.",
    "AwsSolutions-OS4": "Single t3.small data node, one domain per tenant environment (cost bound); the index is "
                        "rebuilt from the agent configuration (`focal index`), so no dedicated masters.",
    "AwsSolutions-OS7": "Single data node (one domain per tenant environment, cost bound): no second zone to be "
                        "aware of; the index is derived data, rebuilt from the agent configuration in DynamoDB, "
                        "and GLOBAL hard constraints are enforced from the config even when retrieval is down.",
    "AwsSolutions-OS9[LogExport::SEARCH_SLOW_LOGS]": "Search slow logs would hold query bodies: k-NN vectors "
                        "embedded from customer messages; retrieval latency is measured per stage in each turn's "
                        "trace and in X-Ray.",
    "AwsSolutions-OS9[LogExport::INDEX_SLOW_LOGS]": "Index slow logs would hold rule documents and vectors; "
                        "indexing runs only when an agent is published (PUT /v1/agents/{agent_id}), whose "
                        "function logs its own duration.",
}
API = {
    "AwsSolutions-APIG3": "No WAF web ACL per tenant stack: the stage is throttled (50 rps, burst 100), every "
                          "method needs a valid hashed API key (Lambda authorizer) and the turn body is validated "
                          "against its model; a web ACL is an account/edge decision left to the deployment.",
    "AwsSolutions-COG4": "Callers are businesses' back ends with API keys, not end users: the REQUEST authorizer "
                         "maps a key (stored hashed) to its tenant, by design; no Cognito user pool.",
}
TOOL_REACH = ("Tenant-prefixed by design: tools may read only secrets under focal/<tenant>/ and invoke only "
              "functions named focal-<tenant>-tool-*, which agent files name at run time.")
BEDROCK_REGIONS = ("A cross-region inference profile (-c model=bedrock/<geo>.<model id>) routes each call to the "
                   "named foundation model in one of several regions that Bedrock chooses, so the model ARN needs a "
                   "region wildcard; the model id itself is exact, and the profile ARN is this region's.")
LOGS_ROLE = ("API Gateway's account-level CloudWatch role (-c createApiGatewayLogsRole=true, once per account and "
             "region): AmazonAPIGatewayPushToCloudWatchLogs is the policy AWS documents for it, and the role is "
             "assumable by apigateway.amazonaws.com only.")
INDEX_PATHS = ("Index paths within this tenant's own domain (es:ESHttp* on domain/focal-<tenant>/*): the "
               "domain holds this tenant's rule index only; reads and writes are split by role.")


def checks(app: App) -> AwsSolutionsChecks:
    pack = AwsSolutionsChecks(app)
    Validations.of(app).add_plugins(pack)
    return pack


def _ack(done: list[Acknowledged], construct: IConstruct, finding: str, reason: str) -> None:
    Validations.of(construct).acknowledge(Acknowledgment(id=finding, reason=reason))
    done.append(Acknowledged(construct.node.path, finding, reason))


def acknowledge(stack: Stack) -> list[Acknowledged]:
    """Acknowledge the accepted findings on `stack` (a FocalStack); returns what was acknowledged."""
    done: list[Acknowledged] = []
    tenant = stack.tenant  # type: ignore[attr-defined]
    functions = [c for c in stack.node.find_all() if isinstance(c, lambda_.Function)]
    machines = [c for c in stack.node.find_all() if isinstance(c, sfn.StateMachine)]
    for fn in functions:
        _ack(done, fn, "AwsSolutions-L1", RUNTIME_REASON)
        _ack(done, fn.role, *XRAY)  # type: ignore[arg-type]
    for machine in machines:
        _ack(done, machine, "AwsSolutions-SF1", LOG_LEVEL_REASON)
        _ack(done, machine.role, *MACHINE_WILDCARD)
    # The approval machine's role may invoke the functions its tasks name, and their versions. (The turn
    # machine invokes the stage functions' `live` aliases: CDK grants exactly those ARNs, no wildcard.)
    invoked = {
        stack.approval_state_machine: [stack.approval_wait_function,  # type: ignore[attr-defined]
                                       stack.approval_timeout_function],  # type: ignore[attr-defined]
    }
    for machine, targets in invoked.items():
        for fn in targets:
            logical_id = stack.get_logical_id(fn.node.default_child)
            _ack(done, machine.role, f"AwsSolutions-IAM5[Resource::<{logical_id}.Arn>:*]", FUNCTION_VERSIONS)
    arn = "arn:<AWS::Partition>:{service}:<AWS::Region>:<AWS::AccountId>:{rest}"
    domain_name = stack.options.domain_name  # type: ignore[attr-defined]
    for fn in (stack.stage_functions["retrieve"], stack.publish_function):  # type: ignore[attr-defined]
        _ack(done, fn.role, f"AwsSolutions-IAM5[Resource::{arn.format(service='es', rest=f'domain/{domain_name}/*')}]",
             INDEX_PATHS)
    for fn in stack.tool_runners:  # type: ignore[attr-defined] - derived from the code (roles.py)
        for service, rest in (("secretsmanager", f"secret:focal/{tenant}/*"), ("lambda", f"function:focal-{tenant}-tool-*")):
            _ack(done, fn.role, f"AwsSolutions-IAM5[Resource::{arn.format(service=service, rest=rest)}]", TOOL_REACH)
    options = stack.options  # type: ignore[attr-defined]
    if options.bedrock:
        from focal_infra.models_access import PROFILE_PREFIX, bedrock_model_id

        model_id = bedrock_model_id(options.model)
        if PROFILE_PREFIX.match(model_id):
            wildcard = arn.format(service="bedrock", rest=f":foundation-model/{PROFILE_PREFIX.sub('', model_id)}")
            wildcard = wildcard.replace("<AWS::Region>:<AWS::AccountId>::", "*::")
            for fn in functions:
                if models_access.calls_models(_function_name(stack, fn)):
                    _ack(done, fn.role, f"AwsSolutions-IAM5[Resource::{wildcard}]", BEDROCK_REGIONS)
    if options.create_api_gateway_logs_role:
        role = stack.api.node.find_child("CloudWatchRole")  # type: ignore[attr-defined]
        _ack(done, role, "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                         "AmazonAPIGatewayPushToCloudWatchLogs]", LOGS_ROLE)
    for finding, reason in DOMAIN.items():
        _ack(done, stack.domain, finding, reason)  # type: ignore[attr-defined]
    for finding, reason in API.items():
        _ack(done, stack.api, finding, reason)  # type: ignore[attr-defined]
    return done


def _function_name(stack: Stack, fn: lambda_.Function) -> str:
    """The name FocalStack gave `fn` (a stage name, fallback or approvals; "" for the others)."""
    for name, candidate in {**stack.stage_functions, "fallback": stack.fallback_function,  # type: ignore[attr-defined]
                            "approvals": stack.approvals_function}.items():  # type: ignore[attr-defined]
        if candidate is fn:
            return name
    return ""
