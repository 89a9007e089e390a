"""The one place Focal makes boto3 clients and sessions: every command and function finds the region the same way.

Region, first found: `AWS_REGION`, `AWS_DEFAULT_REGION`, the region of the profile in use (`AWS_PROFILE`, or
the default profile of ~/.aws/config). boto3 alone reads only the last two outside Lambda; `AWS_REGION` is the
variable Lambda, the AWS CLI v2, the CDK and the other SDKs read, and the one Focal's docs and stack outputs
name, so it comes first (and wins over a stale `AWS_DEFAULT_REGION`). An explicit `region_name=` wins over all.

    client("dynamodb", config=...)   a boto3 client in that region; AwsSetupError when there is none
    session()                        a boto3 Session in that region (for libraries that take one)
    region()                         the region, or None
    problem(exc)                     one line saying what is wrong with the AWS set-up, or None when `exc`
                                     is not an AWS error (no region, no or bad credentials, an unknown
                                     profile, an unreachable endpoint, an error AWS answered)
"""

from __future__ import annotations

import os
from typing import Any

REGION_VARIABLES = ("AWS_REGION", "AWS_DEFAULT_REGION")
NO_REGION = "no AWS region: set AWS_REGION (or AWS_DEFAULT_REGION, or a region in your AWS profile)"
NO_CREDENTIALS = "no AWS credentials: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"


class AwsSetupError(RuntimeError):
    """The AWS set-up cannot work (no region); the message says what to set."""


def region() -> str | None:
    for name in REGION_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    import boto3

    if boto3.DEFAULT_SESSION is None:
        boto3.setup_default_session()
    return boto3.DEFAULT_SESSION.region_name or None


def _region_or_raise(region_name: str | None) -> str:
    found = region_name or region()
    if not found:
        raise AwsSetupError(NO_REGION)
    return found


def client(service: str, region_name: str | None = None, **kwargs: Any) -> Any:
    import boto3

    return boto3.client(service, region_name=_region_or_raise(region_name), **kwargs)


def session(region_name: str | None = None) -> Any:
    import boto3

    return boto3.Session(region_name=_region_or_raise(region_name))


def problem(exc: BaseException) -> str | None:
    if isinstance(exc, AwsSetupError):
        return str(exc)
    try:
        from botocore import exceptions as bx
    except ImportError:  # no boto3 installed: nothing here came from AWS
        return None
    if isinstance(exc, bx.NoRegionError):
        return NO_REGION
    if isinstance(exc, bx.NoCredentialsError):
        return NO_CREDENTIALS
    if isinstance(exc, bx.PartialCredentialsError | bx.ProfileNotFound | bx.EndpointConnectionError):
        return f"AWS set-up: {exc}"
    if isinstance(exc, bx.ClientError):
        error = exc.response.get("Error", {})
        operation = getattr(exc, "operation_name", "") or "the call"
        return f"AWS refused {operation}: {error.get('Code', 'error')}: {error.get('Message', '')}".rstrip(": ")
    if isinstance(exc, bx.BotoCoreError):
        return f"AWS: {exc}"
    return None
