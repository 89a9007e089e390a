"""The whole pipeline in-process on the embedded defaults: stages, jumps, stores, the Catch path."""

from __future__ import annotations

from pathlib import Path

import pytest
from example_tools import reset_state

from focal.errors import PayloadTooLarge
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.pipeline.stage_io import MAX_PAYLOAD_BYTES, check_payload
from focal.turn.definition import STAGE_NAMES
from focal.wiring import local_deps

AGENT = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


@pytest.fixture
def runner(tmp_path):
    deps = local_deps(AGENT, tmp_path / "focal.db")
    agent = deps.configs.get_agent("t1", "retail")
    reset_state(agent, "t1")
    return LocalRunner(deps)


def turn(runner, message, session="s1", turn_id=None, tenant="t1", customer="c-100"):
    turn_id = turn_id or f"{session}-{len(runner.deps.turns.list_for_session(tenant, 'retail', session))}"
    return runner.turn(TurnRequest(tenant_id=tenant, agent_id="retail", session_id=session,
                                   customer_id=customer, turn_id=turn_id, message=message))


def test_a_plain_turn_runs_every_stage_once_in_order(runner):
    result = turn(runner, "How long does shipping usually take?")
    assert runner.visited == list(STAGE_NAMES)
    assert result.success and result.execution_path == "respond"
    assert "shipping_times" in result.matched_rules
    assert "business days" in result.response
    assert set(result.timings_ms) == set(STAGE_NAMES)


def test_refund_flow_over_three_turns_is_persisted(runner):
    first = turn(runner, "I'd like a refund for my order")
    assert first.scenario == {"id": "refund", "step_id": "collect_order"}
    assert "order number" in first.response
    second = turn(runner, "It's A1001")
    assert second.scenario == {"id": "refund", "step_id": "confirm_refund"}
    assert "$30.00" in second.response and [t["tool_id"] for t in second.tool_calls] == ["lookup_order", "check_refund_eligibility"]
    third = turn(runner, "yes please")
    assert "RF-A1001" in third.response
    assert [(t["tool_id"], t["status"]) for t in third.tool_calls] == [("issue_refund", "ok")]

    session = runner.deps.sessions.get("t1", "retail", "s1")
    # three turns + the claim written before the refund ran
    assert session.version == 4 and session.turn_count == 3 and session.active_scenario_id is None
    records = runner.deps.turns.list_for_session("t1", "retail", "s1")
    assert [r.turn_number for r in records] == [1, 2, 3]
    assert records[2].result.response == third.response
    assert records[0].state["sensor"]["context"]["embedding"] == []


def test_a_blocked_refund_promise_loops_back_to_generate_once(runner):
    result = turn(runner, "I want a refund for order A1002", session="s2")
    assert runner.visited == ["sensor", "retrieve", "route", "tools", "generate", "enforce", "generate", "enforce", "persist"]
    assert [v["rule_id"] for v in result.enforcement["violations"]] == ["refund_cap"]
    assert result.enforcement["regenerations"] == 1 and not result.enforcement["fallback_used"]
    assert "$75" not in result.response and "review" in result.response
    session = runner.deps.sessions.get("t1", "retail", "s2")
    # the blocked offer left nothing to confirm; the flow waits at the step for a changed value
    assert (session.flow_state, session.confirmed_step, session.active_step_id) == ("blocked", None, "confirm_refund")


def test_an_empty_message_exits_early_and_is_still_recorded(runner):
    result = turn(runner, "   ", session="s3")
    assert runner.visited == ["sensor", "persist"]
    assert result.execution_path == "rejected" and result.response
    assert len(runner.deps.turns.list_for_session("t1", "retail", "s3")) == 1


def test_a_failing_stage_takes_the_fallback_and_the_turn_is_recorded(runner, monkeypatch):
    import focal.stages.generate as generate

    def boom(state, deps):
        raise RuntimeError("provider exploded")

    monkeypatch.setattr(generate, "run", boom)
    result = turn(runner, "How long does shipping take?", session="s4")
    assert runner.visited[-2:] == ["generate", "fallback"]
    assert not result.success and result.execution_path == "fallback"
    assert result.error["code"].startswith("stage_failed") and result.error["stage"] == "generate"
    assert result.response
    [record] = runner.deps.turns.list_for_session("t1", "retail", "s4")
    assert record.result.error is not None


def test_tenants_do_not_share_sessions(runner):
    turn(runner, "I'd like a refund for my order", session="shared", tenant="t1")
    other = turn(runner, "It's A1001", session="shared", tenant="t2")
    assert other.scenario is None or other.scenario["id"] != "refund"
    assert runner.deps.sessions.get("t2", "retail", "shared").active_scenario_id is None


def test_payload_limit_is_checked():
    check_payload({"x": "a" * 1000}, "sensor")
    with pytest.raises(PayloadTooLarge, match="sensor"):
        check_payload({"x": "a" * (MAX_PAYLOAD_BYTES + 1)}, "sensor")


TIE_AGENT = """
id: tie
name: Tie
scenarios:
  - id: billing
    name: Billing question
    entry_examples: ["I have a problem with my order", "my invoice is wrong"]
    entry_step_id: s
    steps: [{id: s, response_template: "Billing it is."}]
  - id: delivery
    name: Delivery question
    entry_examples: ["I have a problem with my order", "my parcel is late"]
    entry_step_id: s
    steps: [{id: s, response_template: "Delivery it is."}]
"""


def test_two_scenarios_that_fit_equally_exit_early_with_a_question(tmp_path):
    path = tmp_path / "agent.yaml"
    path.write_text(TIE_AGENT)
    runner = LocalRunner(local_deps(path, tmp_path / "tie.db"))
    result = runner.turn(TurnRequest(tenant_id="t", agent_id="tie", session_id="s", turn_id="1",
                                     message="I have a problem with my order"))
    assert runner.visited == ["sensor", "persist"]
    assert result.execution_path == "clarify"
    assert "Billing question" in result.response and "Delivery question" in result.response
    assert result.suggested_questions and result.scenario is None
    clear = runner.turn(TurnRequest(tenant_id="t", agent_id="tie", session_id="s2", turn_id="2",
                                    message="my parcel is late"))
    assert clear.scenario == {"id": "delivery", "step_id": "s"} and clear.response == "Delivery it is."
