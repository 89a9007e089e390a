"""The airline agent's conversation suite (examples/airline/tests.yaml), built from τ-bench airline tasks:
every conversation passes, at least 41 of the 50 benchmark tasks are covered, every policy-violating attempt is
stopped by an action guard before its tool runs, and the data files are never written."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from example_tools import reset_state

from focal.cli.conversation_tests import TENANT_ID, format_report, run_suite
from focal.config.loader import load_agent

AIRLINE = Path(__file__).resolve().parents[2] / "examples" / "airline"
AGENT = AIRLINE / "agent.yaml"
SUITE = AIRLINE / "tests.yaml"
DATA = sorted((AIRLINE / "data").glob("*.json"))


def _reset_airline_tools() -> None:
    """Forget bookings, changes and certificates, in the tool worker the suite's turns use."""
    reset_state(load_agent(AGENT), TENANT_ID)


def _digests() -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in DATA}


@pytest.fixture()
def fresh_tools():
    _reset_airline_tools()
    yield
    _reset_airline_tools()


def test_airline_suite_passes(fresh_tools) -> None:
    before = _digests()
    report = run_suite(AGENT, SUITE)
    print(format_report(report))
    assert report.passed, "\n" + format_report(report)
    assert len(report.tasks_covered) >= 41
    blocked, attempts = report.guard_attempts
    # 47 since a confirmation is no longer offered over a reservation the lookup did not find (nothing to block);
    # 44 since a second yes after a block is no attempt (the first was spent on the blocked one: tasks 12, 18, 39)
    assert attempts >= 44 and blocked == attempts
    assert _digests() == before, "the tools wrote the data files"
    assert {"users.json", "reservations.json", "flights.json"} <= set(before)
