"""Idempotency keys of tool calls: stable for the same call, different for any other; and a python
tool receives its call's key only when it asks for one."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

import pytest

from focal.adapters.python_tools import PythonToolRunner, takes_idempotency_key
from focal.adapters.tool_runner import KindToolRunner
from focal.models.agent import AgentConfig, Tool
from focal.models.turn import ToolCallContext
from focal.tool_keys import canonical_call, idempotency_key

CALL = ("acme", "s-1", "t-3", "issue_refund", {"order_id": "A1001", "amount": 30.0})


def test_the_key_is_the_sha256_hex_of_the_canonical_call():
    key = idempotency_key(*CALL)
    assert len(key) == 64 and set(key) <= set("0123456789abcdef")
    assert key == hashlib.sha256(canonical_call(*CALL).encode()).hexdigest()
    assert idempotency_key(*CALL) == key


def test_argument_order_does_not_change_the_key():
    nested_a = {"order_id": "A1", "meta": {"x": 1, "y": [1, 2]}, "amount": 30}
    nested_b = {"amount": 30, "meta": {"y": [1, 2], "x": 1}, "order_id": "A1"}
    assert idempotency_key("t", "s", "1", "refund", nested_a) == idempotency_key("t", "s", "1", "refund", nested_b)


@pytest.mark.parametrize("changed", [
    ("globex", "s-1", "t-3", "issue_refund", {"order_id": "A1001", "amount": 30.0}),
    ("acme", "s-2", "t-3", "issue_refund", {"order_id": "A1001", "amount": 30.0}),
    ("acme", "s-1", "t-4", "issue_refund", {"order_id": "A1001", "amount": 30.0}),
    ("acme", "s-1", "t-3", "update_address", {"order_id": "A1001", "amount": 30.0}),
    ("acme", "s-1", "t-3", "issue_refund", {"order_id": "A1002", "amount": 30.0}),
    ("acme", "s-1", "t-3", "issue_refund", {"order_id": "A1001", "amount": 30.5}),
    ("acme", "s-1", "t-3", "issue_refund", {"order_id": "A1001"}),
])
def test_any_other_component_gives_another_key(changed):
    assert idempotency_key(*changed) != idempotency_key(*CALL)


def test_components_cannot_run_into_each_other():
    """'a' + 'bc' and 'ab' + 'c' are different calls, so they are different keys."""
    assert idempotency_key("a", "bc", "1", "t", {}) != idempotency_key("ab", "c", "1", "t", {})


def test_values_json_cannot_write_are_keyed_by_their_text():
    from datetime import date

    assert idempotency_key("t", "s", "1", "x", {"d": date(2024, 5, 1)}) == idempotency_key("t", "s", "1", "x", {"d": "2024-05-01"})


# --- python tools ------------------------------------------------------------------------------
TOOLS = '''
def with_key(order_id, idempotency_key=None):
    return {"order_id": order_id, "key": idempotency_key}

def with_kwargs(order_id, **extra):
    return {"order_id": order_id, "extra": sorted(extra.items())}

def without_key(order_id):
    return {"order_id": order_id}
'''


@pytest.fixture
def agent(tmp_path: Path) -> AgentConfig:
    (tmp_path / "tools.py").write_text(textwrap.dedent(TOOLS), encoding="utf-8")
    return AgentConfig(id="a", name="a", base_dir=str(tmp_path))


def tool(function: str) -> Tool:
    return Tool(id=function, entrypoint=f"tools.py:{function}", input={"order_id": {"type": "id"}}, side_effect=True)


def context(key: str | None) -> ToolCallContext:
    return ToolCallContext(tenant_id="t", session_id="s", turn_id="1", idempotency_key=key)


def test_a_python_tool_that_declares_the_parameter_receives_the_key(agent):
    runner = KindToolRunner()
    key = idempotency_key("t", "s", "1", "with_key", {"order_id": "A1"})
    assert runner.run(agent, tool("with_key"), {"order_id": "A1"}, context(key)) == {"order_id": "A1", "key": key}
    # the answer comes back as JSON: the (name, value) pair as a list
    assert runner.run(agent, tool("with_kwargs"), {"order_id": "A1"}, context(key))["extra"] == [["idempotency_key", key]]


def test_no_key_without_a_context_key_or_a_parameter_for_it(agent):
    runner = PythonToolRunner()
    assert runner.run(agent, tool("with_key"), {"order_id": "A1"})["key"] is None
    assert runner.run(agent, tool("with_key"), {"order_id": "A1"}, context(None))["key"] is None
    assert runner.run(agent, tool("with_kwargs"), {"order_id": "A1"}, context(None))["extra"] == []
    # a function without the parameter is called as before, not with an unexpected keyword
    assert runner.run(agent, tool("without_key"), {"order_id": "A1"}, context("k" * 64)) == {"order_id": "A1"}


def test_the_signature_decides():
    def positional_only(idempotency_key, /):
        return {}

    def keyword_only(*, idempotency_key):
        return {}

    assert takes_idempotency_key(keyword_only) and not takes_idempotency_key(positional_only)
    assert not takes_idempotency_key(len)
