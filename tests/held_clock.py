"""Shared by the claim and persistence tests: time the test moves, and a moto table for turn claims."""

from __future__ import annotations

import time
from typing import Any


class Clock:
    """Time the test moves: now, and later by `advance`."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def claims_table(name: str) -> Any:
    """A DynamoDB client (inside an active moto mock) with the stack's IdempotencyTable shape created as `name`."""
    import boto3

    client = boto3.client("dynamodb", region_name="us-east-1")
    client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    return client
