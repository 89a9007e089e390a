"""What a function that may call a model gets: the litellm layer (stack.py), memory for its import,
the configured model, and the permission to reach it — decided from the code (model_stages.py).

    -c model=bedrock/<model id>   FOCAL_MODEL, and bedrock:InvokeModel on that model only (the function's
                                  IAM role is the credential; no key anywhere). A cross-region inference
                                  profile id (us./eu./apac./global. ...) also needs the foundation model in
                                  each region the profile routes to.
    -c model=<provider>/<name>    FOCAL_MODEL; the provider's key is read at init from the Secrets Manager
                                  secret focal/<tenant>/model_api_key (created by the operator, see docs/how-to/deploy-aws.md).
    no model                      offline components; the secret stays readable (an agent file may name a
                                  provider model in `models.model`, which FOCAL_MODEL would otherwise override).
"""

from __future__ import annotations

import re

from aws_cdk import ArnFormat, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_

from focal_infra import model_stages
from focal_infra.options import Options

MIN_MODEL_MEMORY_MB = 1024  # litellm's import is CPU-bound: 4.7 s CPU with .pyc, ~8 s at 1,024 MB without SnapStart
# litellm route prefixes that come before the Bedrock model id (bedrock/converse/<id>, bedrock/invoke/<id>).
BEDROCK_ROUTES = ("converse/", "invoke/", "converse_like/")
PROFILE_PREFIX = re.compile(r"^(us|eu|apac|global|us-gov|jp|au|ca)\.")
BEDROCK_ACTIONS = ("bedrock:InvokeModel",)  # Converse is authorised by InvokeModel; no streaming is used
NON_STAGE_FUNCTIONS = ("fallback", "approvals", "publish")


def calls_models(function: str) -> bool:
    """Whether the function named `function` in the stack (a stage, fallback, approvals, publish) may call a model."""
    from focal.turn.definition import STAGE_NAMES

    if function not in STAGE_NAMES and function not in NON_STAGE_FUNCTIONS:
        return False  # the authorizer and the approval workflow's own steps run no engine stage
    return model_stages.calls_models(function)


def bedrock_model_id(model: str) -> str:
    model_id = model.removeprefix("bedrock/")
    for route in BEDROCK_ROUTES:
        model_id = model_id.removeprefix(route)
    return model_id


def bedrock_resources(stack: Stack, model: str) -> list[str]:
    model_id = bedrock_model_id(model)
    if model_id.startswith("arn:"):
        return [model_id]
    if PROFILE_PREFIX.match(model_id):
        base = PROFILE_PREFIX.sub("", model_id)
        return [
            stack.format_arn(service="bedrock", resource="inference-profile", resource_name=model_id),
            stack.format_arn(service="bedrock", resource="foundation-model", resource_name=base, region="*", account=""),
        ]
    return [stack.format_arn(service="bedrock", resource="foundation-model", resource_name=model_id, account="")]


def model_secret_arn(stack: Stack, options: Options) -> str:
    return stack.format_arn(service="secretsmanager", resource="secret",
                            resource_name=f"{options.model_secret_name}-??????",
                            arn_format=ArnFormat.COLON_RESOURCE_NAME)


def grant(stack: Stack, fn: lambda_.Function, options: Options) -> None:
    if options.model:
        fn.add_environment("FOCAL_MODEL", options.model)
    if options.bedrock:
        fn.add_to_role_policy(iam.PolicyStatement(actions=list(BEDROCK_ACTIONS),
                                                  resources=bedrock_resources(stack, options.model or "")))
    else:
        fn.add_to_role_policy(iam.PolicyStatement(actions=["secretsmanager:GetSecretValue"],
                                                  resources=[model_secret_arn(stack, options)]))
