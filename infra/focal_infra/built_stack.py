"""What the parts built last read from a tenant stack: its alarms and dashboard (operations.py), its outputs
(outputs.py) and its functions' port permissions (roles.py).

A Protocol, so those modules name what they read without importing stack.py, which builds the stack and calls
them (stack → operations, outputs, roles → this module: no circle). `FocalStack` has every member.
"""

from __future__ import annotations

from typing import Protocol

from aws_cdk import ArnFormat
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_opensearchservice as opensearch
from aws_cdk import aws_stepfunctions as sfn

from focal_infra.options import Options


class BuiltStack(Protocol):
    tenant: str
    options: Options
    tables: dict[str, dynamodb.Table]  # sessions, profiles, turns, config, idempotency
    api_keys_table: dynamodb.Table
    event_bus: events.EventBus
    approval_state_machine: sfn.StateMachine
    handlers: dict[str, tuple[lambda_.Function, str]]  # function name → (function, Lambda handler)
    stage_functions: dict[str, lambda_.Function]
    fallback_function: lambda_.Function
    state_machine: sfn.StateMachine
    domain: opensearch.Domain
    api: apigw.RestApi

    @property
    def region(self) -> str: ...

    def tenant_items(self, table: dynamodb.Table, actions: tuple[str, ...], below: str = "") -> iam.PolicyStatement: ...

    def customer_token_secret_arn(self, suffix: str = "-??????") -> str: ...

    def format_arn(self, *, resource: str, service: str, arn_format: ArnFormat | None = None,
                   resource_name: str | None = None) -> str: ...
