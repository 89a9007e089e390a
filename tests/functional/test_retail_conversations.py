"""The retail agent's conversation suite (examples/retail/tests.yaml): every conversation passes."""

from __future__ import annotations

from pathlib import Path

import pytest
from example_tools import reset_state

from focal.cli.conversation_tests import TENANT_ID, format_report, run_suite
from focal.config.loader import load_agent

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail"
AGENT = RETAIL / "agent.yaml"
SUITE = RETAIL / "tests.yaml"


def _reset_retail_tools() -> None:
    """Forget refunds and address changes, in the tool worker the suite's turns use.

    Tool files run in a worker process per tenant and agent, so the reset goes to that worker rather than
    to a second import of tools.py here.
    """
    reset_state(load_agent(AGENT), TENANT_ID)


@pytest.fixture()
def fresh_tools():
    _reset_retail_tools()
    yield
    _reset_retail_tools()


def test_retail_suite_passes(fresh_tools) -> None:
    report = run_suite(AGENT, SUITE)
    print(format_report(report))
    assert len(report.conversations) >= 12
    assert report.passed, "\n" + format_report(report)


def test_retail_suite_covers_what_ci_relies_on() -> None:
    """The suite keeps the scenarios the brief of the retail example promises."""
    import yaml

    suite = yaml.safe_load(SUITE.read_text(encoding="utf-8"))
    expects = [t.get("expect") or {} for c in suite["conversations"] for t in c["turns"]]
    scripted = [t["model"] for c in suite["conversations"] for t in c["turns"] if t.get("model")]
    violations = {v for e in expects for v in e.get("violations", [])}
    assert {"refund_cap", "no_competitors", "no_card_echo"} <= violations
    assert {e.get("execution_path") for e in expects} >= {"respond", "clarify", "escalate", "fallback"}
    assert any(e.get("fallback_used") is True for e in expects)
    assert any(e.get("regenerations") == 1 for e in expects)
    assert any("issue_refund" in e.get("tool_calls", []) for e in expects)
    assert any("update_address" in e.get("tool_calls", []) for e in expects)
    assert any("sensor" in m for m in scripted) and any("generate" in m for m in scripted)
    assert any(c.get("profile", {}).get("is_premium") for c in suite["conversations"])
