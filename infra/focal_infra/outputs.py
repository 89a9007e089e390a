"""Stack outputs: where to call, what was created, and the exact command that creates the first admin key.

Names and endpoints only: no key, secret value or customer data is ever an output.
"""

from __future__ import annotations

from aws_cdk import CfnOutput
from constructs import Construct

from focal_infra.built_stack import BuiltStack

TABLE_OUTPUTS = {"sessions": "SessionsTableName", "profiles": "ProfilesTableName", "turns": "TurnsTableName",
                 "config": "AgentConfigTableName", "idempotency": "IdempotencyTableName"}


def admin_key_command(stack: BuiltStack) -> str:
    """`focal keys create` against this stack's keys table, in this stack's region (tokens resolve at deploy)."""
    return (f"AWS_REGION={stack.region} focal keys create --table {stack.api_keys_table.table_name} "
            f"--tenant {stack.tenant} --scope admin --label first-admin")


def add(scope: Construct, stack: BuiltStack) -> None:
    def out(name: str, value: str, description: str) -> None:
        CfnOutput(scope, name, value=value, description=description)

    out("ApiEndpoint", stack.api.url, "Base URL of the turn API (append v1/...)")
    out("TurnUrlTemplate", f"{stack.api.url}v1/agents/<agent_id>/sessions/<session_id>/turns",
        "POST a turn here (X-Api-Key header, JSON body {\"message\": ...})")
    out("PublishUrlTemplate", f"{stack.api.url}v1/agents/<agent_id>", "PUT an agent file here (publish scope)")
    out("ApiKeysTableName", stack.api_keys_table.table_name, "API keys (hashed): focal keys create|list|revoke --table")
    for key, name in TABLE_OUTPUTS.items():
        out(name, stack.tables[key].table_name, f"DynamoDB table: {key} (kept on destroy)")
    out("CreateAdminKeyCommand", admin_key_command(stack),
        "Run from the activated venv: prints the first admin key once (only its hash is stored)")
    out("CustomerTokenSecretName", f"focal/{stack.tenant}/customer_token_secret",
        "Create this secret to sign customer tokens (X-Focal-Customer-Token); optional")
    out("ModelSecretName", stack.options.model_secret_name,
        "The model provider's API key (non-Bedrock providers), created by you; never an output value")
    out("OpenSearchDomainName", stack.domain.domain_name, "Rule index domain (derived data, deleted on destroy)")
    out("TurnStateMachineArn", stack.state_machine.state_machine_arn, "The EXPRESS turn pipeline")
    out("DashboardName", f"focal-{stack.tenant}", "CloudWatch dashboard of this tenant environment")
