"""Shared by the claim and persistence tests: time the test moves, a moto table for turn claims, and a runner on
a copy of the retail example."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
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


RETAIL = Path(__file__).resolve().parents[1] / "examples" / "retail"


def retail_runner(tmp_path: Path, wrap: Callable[[Any], Any], tool_changes: dict | None = None,
                  **agent_changes: Any) -> Any:
    """A local runner on a copy of the retail example (its tools' state reset, its tool runner wrapped by `wrap`,
    time from a held `Clock`), with `agent_changes` at the top of its file and `tool_changes` per tool id."""
    import shutil

    import yaml
    from example_tools import reset_state

    from focal.pipeline.runner import LocalRunner
    from focal.wiring import local_deps

    folder = tmp_path / "retail"
    shutil.copytree(RETAIL, folder)
    raw = yaml.safe_load((folder / "agent.yaml").read_text())
    for tool in raw["tools"]:
        tool.update((tool_changes or {}).get(tool["id"], {}))
    raw.update(agent_changes)
    (folder / "agent.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    deps = local_deps(folder / "agent.yaml", tmp_path / "focal.db")
    reset_state(deps.configs.get_agent("t1", "retail"), "t1")
    deps.tools = wrap(deps.tools)
    deps.clock = Clock()
    return LocalRunner(deps)
