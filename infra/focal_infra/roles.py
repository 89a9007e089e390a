"""Each Lambda function's tables, event bus, approval-workflow and tool permissions, derived from the ports its
code calls (port_access.py reads the code, port_grants.py says what each port method does in AWS).

    grant_port_access(stack)   add them to every function of a FocalStack; returns the functions that run tools

The authorizer (the API-keys table and the customer-token secret), the model (models_access.py) and the rule
index (the domain's reader and writer) are granted in stack.py.
"""

from __future__ import annotations

from aws_cdk import ArnFormat
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_

from focal_infra import port_access, port_grants
from focal_infra.built_stack import BuiltStack

TOOL_FUNCTION_PREFIX = "focal-{tenant}-tool-"  # lambda tools an agent may call


def grant_port_access(stack: BuiltStack) -> list[lambda_.Function]:
    tool_runners = []
    for name, (fn, handler) in stack.handlers.items():
        derived = port_grants.grants(handler, port_access.dispatched_stages(name))
        for (table, below), actions in sorted(derived.items.items()):
            fn.add_to_role_policy(stack.tenant_items(stack.tables[table], tuple(sorted(actions)), below))
        if port_grants.BUS in derived.services:
            stack.event_bus.grant_put_events_to(fn)
        if port_grants.START_APPROVAL in derived.services:
            stack.approval_state_machine.grant_start_execution(fn)
        if port_grants.RESUME_APPROVAL in derived.services:
            fn.add_to_role_policy(iam.PolicyStatement(
                actions=["states:SendTaskSuccess"], resources=[stack.approval_state_machine.state_machine_arn]))
        if port_grants.TOOL_REACH in derived.services:
            tool_reach(stack, fn)
            tool_runners.append(fn)
    return tool_runners


def tool_reach(stack: BuiltStack, fn: lambda_.Function) -> None:
    """Tool secrets live under `focal/<tenant>/` in Secrets Manager; lambda tools are functions named
    `focal-<tenant>-tool-*`. Nothing else is reachable from an agent file."""
    fn.add_to_role_policy(iam.PolicyStatement(
        actions=["secretsmanager:GetSecretValue"],
        resources=[stack.format_arn(service="secretsmanager", resource="secret",
                                    resource_name=f"focal/{stack.tenant}/*", arn_format=ArnFormat.COLON_RESOURCE_NAME)]))
    # ... except the secret that signs customer tokens: an agent file's `${secret:...}` must never reach it
    # (it could mint any customer's identity).
    fn.add_to_role_policy(iam.PolicyStatement(
        effect=iam.Effect.DENY, actions=["secretsmanager:GetSecretValue"], resources=[stack.customer_token_secret_arn("*")]))
    fn.add_to_role_policy(iam.PolicyStatement(
        actions=["lambda:InvokeFunction"],
        resources=[stack.format_arn(service="lambda", resource="function",
                                    resource_name=f"{TOOL_FUNCTION_PREFIX.format(tenant=stack.tenant)}*",
                                    arn_format=ArnFormat.COLON_RESOURCE_NAME)]))
