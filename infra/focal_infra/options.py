"""Deployment options, read from CDK context (`-c key=value`, cdk.json, or `cdk.App(context=...)`).

    tenant                    1-20 characters a-z 0-9 '-' (default "dev"): stack Focal-<tenant>
    model                     litellm model name for every model-calling function (unset: offline components).
                              `bedrock/<model id>` is called through IAM (bedrock:InvokeModel on that id);
                              any other provider reads its key from the secret focal/<tenant>/model_api_key.
    createApiGatewayLogsRole  "true": this stack creates the account's API Gateway CloudWatch role and sets
                              it on the account (once per account and region; `make deploy` detects it)
    opensearchDomainName      the rule index domain's name (default focal-<tenant>; 3-28 chars a-z 0-9 '-')
    removeDataOnDestroy       "true": `cdk destroy` deletes the tables too (throwaway tenants); default: kept
    alarmTopicArn             an SNS topic ARN that the alarms notify (default: alarms only, no action)

Every value arrives as a string from the command line and as JSON from cdk.json: both are accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from constructs import Construct

TENANT_PATTERN = re.compile(r"^[a-z][a-z0-9-]{0,19}$")
DOMAIN_PATTERN = re.compile(r"^[a-z][a-z0-9-]{2,27}$")
MODEL_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,199}$")
TOPIC_PATTERN = re.compile(r"^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$")


def flag(value: object, name: str) -> bool:
    if value is None or value is False or value == "" or value == "false":
        return False
    if value is True or value == "true":
        return True
    raise ValueError(f"context {name}={value!r}: use true or false")


def tenant_from_context(scope: Construct, default: str = "dev") -> str:
    tenant = scope.node.try_get_context("tenant") or default
    if not isinstance(tenant, str) or not TENANT_PATTERN.fullmatch(tenant):
        raise ValueError(f"tenant {tenant!r}: use 1-20 characters a-z, 0-9, '-', starting with a letter")
    return tenant


@dataclass(frozen=True)
class Options:
    tenant: str
    model: str | None = None
    create_api_gateway_logs_role: bool = False
    domain_name: str = ""
    remove_data_on_destroy: bool = False
    alarm_topic_arn: str | None = None

    @property
    def bedrock(self) -> bool:
        return bool(self.model and self.model.startswith("bedrock/"))

    @property
    def model_secret_name(self) -> str:
        """Where a non-Bedrock provider's API key lives (created by the operator, see docs/how-to/deploy-aws.md)."""
        return f"focal/{self.tenant}/model_api_key"


def options_from_context(scope: Construct, tenant: str) -> Options:
    ctx = scope.node.try_get_context
    model = ctx("model") or None
    if model is not None and (not isinstance(model, str) or not MODEL_PATTERN.fullmatch(model)):
        raise ValueError(f"context model={model!r}: a litellm model name such as bedrock/<model id> or openai/gpt-4o-mini")
    domain = ctx("opensearchDomainName") or f"focal-{tenant}"[:28]
    if not isinstance(domain, str) or not DOMAIN_PATTERN.fullmatch(domain):
        raise ValueError(f"context opensearchDomainName={domain!r}: 3-28 characters a-z, 0-9, '-', starting with a letter")
    topic = ctx("alarmTopicArn") or None
    if topic is not None and (not isinstance(topic, str) or not TOPIC_PATTERN.fullmatch(topic)):
        raise ValueError(f"context alarmTopicArn={topic!r}: an SNS topic ARN")
    return Options(
        tenant=tenant,
        model=model,
        create_api_gateway_logs_role=flag(ctx("createApiGatewayLogsRole"), "createApiGatewayLogsRole"),
        domain_name=domain,
        remove_data_on_destroy=flag(ctx("removeDataOnDestroy"), "removeDataOnDestroy"),
        alarm_topic_arn=topic,
    )
