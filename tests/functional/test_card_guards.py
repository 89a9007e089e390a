"""Action guards and scope-complete enforcement on the card-support example (examples/cards).

The suite covers the conversations; these tests add what a script cannot: the tools' own state
after the suite (nothing ordered for the unverified customer, nothing blocked, ordered or disputed
for another customer's card or transaction; tests/security/test_card_ownership.py has the rest), two
concurrent "yes" turns that must run the action once, and a guard that raises at run time.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from focal.adapters.python_tools import PythonToolRunner
from focal.cli.conversation_tests import format_report, run_suite
from focal.config.loader import load_agent
from focal.models.agent import Tool
from focal.models.session import CustomerProfile
from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

CARDS = Path(__file__).resolve().parents[2] / "examples" / "cards"
AGENT = CARDS / "agent.yaml"
CUSTOMER = "c-verified"  # holds card 1234: the tools act only on the session customer's own cards


def tools_call(entrypoint: str) -> Any:
    """Call a function of the tools module in the tool worker the turns (tenant "local") use."""
    agent = load_agent(AGENT)
    return PythonToolRunner().run_outside_turn(agent, Tool(id=entrypoint, entrypoint=f"tools.py:{entrypoint}"), "local")


@pytest.fixture()
def fresh_tools():
    tools_call("reset_state")
    yield
    tools_call("reset_state")


def test_cards_suite_passes_and_orders_only_for_the_verified_customer(fresh_tools) -> None:
    report = run_suite(AGENT, CARDS / "tests.yaml")
    assert report.conversations and report.passed, "\n" + format_report(report)
    # 1234 was replaced twice (RC-0001, then RC-0002 after c-verified first named 5678, 0000 and 9012);
    # never 5678, the unverified customer's card (nor c-verified's attempt at it), nor 9012 or 0000
    assert tools_call("replacements") == {"1234": "RC-0002"}
    # only c-verified's own transactions were disputed: never TX-1002, made with c-unverified's card. TX-1003 twice:
    # DS-0001 after its blocked offer was made again and confirmed, DS-0003 in the ownership conversation
    assert tools_call("disputes") == {"TX-1001": "DS-0002", "TX-1003": "DS-0003"}


def _runner(tmp_path: Path, verified: bool = True) -> LocalRunner:
    deps = local_deps(AGENT, tmp_path / "focal.db")
    deps.profiles.save(CustomerProfile(tenant_id="local", agent_id="cards", customer_id=CUSTOMER,
                                       fields={"is_verified": verified}))
    return LocalRunner(deps)


def _turn(runner: LocalRunner, message: str, turn_id: str, session: str = "s1") -> TurnResult:
    return runner.turn(TurnRequest(tenant_id="local", agent_id="cards", session_id=session, customer_id=CUSTOMER,
                                   turn_id=turn_id, message=message))


def test_two_concurrent_yes_turns_order_the_card_once(fresh_tools, tmp_path) -> None:
    runner = _runner(tmp_path)
    _turn(runner, "I lost my card", "t1")
    assert _turn(runner, "1234", "t2").scenario == {"id": "replace_card", "step_id": "confirm_replacement"}

    # Both "yes" turns read the session before either writes: the race the claim must win once.
    sessions = runner.deps.sessions
    original_get = sessions.get
    barrier = threading.Barrier(2, timeout=10)
    first_reads: set[str] = set()

    def get_together(*args: Any, **kwargs: Any):
        session = original_get(*args, **kwargs)
        name = threading.current_thread().name
        if name.startswith("yes-") and name not in first_reads:  # the sensor's read, once per turn
            first_reads.add(name)
            barrier.wait()
        return session

    sessions.get = get_together  # type: ignore[method-assign]
    results: dict[str, TurnResult] = {}

    def say_yes(turn_id: str) -> None:
        results[turn_id] = _turn(LocalRunner(runner.deps), "yes", turn_id)

    threads = [threading.Thread(target=say_yes, args=(f"t3-{i}",), name=f"yes-{i}") for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    sessions.get = original_get  # type: ignore[method-assign]

    assert tools_call("replacements") == {"1234": "RC-0001"}
    ran = [r for r in results.values() if any(t["tool_id"] == "order_replacement_card" and t["status"] == "ok"
                                              for t in r.tool_calls)]
    lost = [r for r in results.values() if r.error is not None]
    assert len(ran) == 1 and "RC-0001" in ran[0].response
    assert len(lost) == 1 and lost[0].error["code"] == "session_conflict"  # type: ignore[index]
    assert not any(t["tool_id"] == "order_replacement_card" for t in lost[0].tool_calls)
    # Both turns are recorded; a third "yes" finds the flow finished and runs nothing.
    records = runner.deps.turns.list_for_session("local", "cards", "s1")
    assert {"t3-0", "t3-1"} <= {r.turn_id for r in records}
    again = _turn(runner, "yes", "t4")
    assert not any(t["tool_id"] == "order_replacement_card" for t in again.tool_calls)
    assert tools_call("replacements") == {"1234": "RC-0001"}


def test_a_guard_that_raises_at_run_time_blocks_the_call_and_the_turn_is_recorded(fresh_tools, tmp_path) -> None:
    broken = tmp_path / "agent.yaml"
    text = AGENT.read_text(encoding="utf-8")
    assert "enforcement_expression: is_verified\n" in text
    broken.write_text(text.replace("enforcement_expression: is_verified\n",
                                   "enforcement_expression: is_verified and len(card_last4) > 3 and card_last4 + 1 > 0\n"),
                      encoding="utf-8")
    (tmp_path / "tools.py").write_text((CARDS / "tools.py").read_text(encoding="utf-8"), encoding="utf-8")
    deps = local_deps(broken, tmp_path / "focal.db")
    deps.profiles.save(CustomerProfile(tenant_id="local", agent_id="cards", customer_id=CUSTOMER, fields={"is_verified": True}))
    runner = LocalRunner(deps)
    _turn(runner, "I lost my card", "t1")
    _turn(runner, "1234", "t2")
    result = _turn(runner, "yes", "t3")

    [call] = [t for t in result.tool_calls if t["tool_id"] == "order_replacement_card"]
    assert call["status"] == "blocked" and "cannot verify" in call["error"] and "TypeError" in call["error"]
    assert result.execution_path == "rejected" and "nothing has been ordered" in result.response
    records = deps.turns.list_for_session("local", "cards", "s1")
    assert [r.turn_id for r in records][-1] == "t3"
    assert records[-1].result.tool_calls[0]["status"] == "blocked"
    assert records[-1].state["route"]["decision"]["blocked_by"] == ["verified_only"]


def test_a_turn_that_loses_the_race_after_its_action_ran_keeps_the_record_of_it(fresh_tools, tmp_path) -> None:
    """Another write lands between the claim and this turn's final save (e.g. a concurrent message
    counted while the card was being ordered): the ordered card is applied to the latest session."""
    runner = _runner(tmp_path)
    _turn(runner, "I lost my card", "t1")
    _turn(runner, "1234", "t2")
    sessions = runner.deps.sessions
    original_save = sessions.save
    saves = {"n": 0}

    def racing_save(session, expected_version):
        saves["n"] += 1
        if saves["n"] == 2:  # this turn's final save: the claim (save 1) and the action are done
            other = sessions.get("local", "cards", "s1")
            other.turn_count += 1
            other.remember("user", "hello?")
            original_save(other, expected_version=other.version)
        return original_save(session, expected_version=expected_version)

    sessions.save = racing_save  # type: ignore[method-assign]
    result = _turn(runner, "yes", "t3")
    sessions.save = original_save  # type: ignore[method-assign]

    assert result.success and "RC-0001" in result.response
    stored = sessions.get("local", "cards", "s1")
    assert stored.variables["replacement_reference"] == "RC-0001"
    assert stored.action_claims == {}
    assert stored.active_scenario_id is None and stored.flow_state == "completed"
    assert stored.turn_count == 4 and any(h.text == "hello?" for h in stored.history)
    again = _turn(runner, "yes", "t4")
    assert not any(t["tool_id"] == "order_replacement_card" for t in again.tool_calls)
    assert tools_call("replacements") == {"1234": "RC-0001"}
