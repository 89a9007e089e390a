"""Issue 7, persistence: idempotent turn submission, profile migration on read, session conflicts.

Through the local runner (SQLite, the same stage code as the Lambdas) and, for the idempotency
store, the DynamoDB turn claims under moto. Time comes from a clock the tests move (Deps.clock).
Stale claims left by a killed process: tests/security/test_stale_turn_claims.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from held_clock import claims_table, retail_runner

from focal.errors import VersionConflict
from focal.models.session import CustomerProfile
from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline.runner import LocalRunner
from focal.turn.idempotency import lease_s


class CountingTools:
    """The real tool runner, counting calls per tool id."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def run(self, agent, tool, arguments, context=None):
        self.calls.append(tool.id)
        return self.inner.run(agent, tool, arguments, context)


def _runner(tmp_path: Path, **agent_changes) -> LocalRunner:
    return retail_runner(tmp_path, CountingTools, **agent_changes)



def _same(a: TurnResult, b: TurnResult) -> bool:
    """The same answer; timings_ms are this execution's own (a replay takes sensor + persist only)."""
    return a.model_dump(exclude={"timings_ms"}) == b.model_dump(exclude={"timings_ms"})


def _turn(runner: LocalRunner, message: str, turn_id: str, session: str = "s1", tenant: str = "t1") -> TurnResult:
    return runner.turn(TurnRequest(tenant_id=tenant, agent_id="retail", session_id=session, customer_id="c-100",
                                   turn_id=turn_id, message=message))


@pytest.fixture
def runner(tmp_path):
    return _runner(tmp_path)


# --- idempotent turns ------------------------------------------------------------------------

def test_repeated_confirmation_returns_the_first_answer_and_refunds_once(runner):
    _turn(runner, "I'd like a refund for my order", "t-1")
    _turn(runner, "It's A1001", "t-2")
    first = _turn(runner, "yes", "t-3")
    assert "RF-A1001" in first.response and runner.deps.tools.calls.count("issue_refund") == 1
    again = _turn(runner, "yes", "t-3")
    assert runner.visited == ["sensor", "persist"]  # nothing between ran
    assert _same(again, first)
    assert runner.deps.tools.calls.count("issue_refund") == 1
    session = runner.deps.sessions.get("t1", "retail", "s1")
    assert session.turn_count == 3 and session.version == 4  # + the claim written before the refund ran
    assert [r.turn_id for r in runner.deps.turns.list_for_session("t1", "retail", "s1")] == ["t-1", "t-2", "t-3"]


def test_different_turn_ids_run_normally(runner):
    a = _turn(runner, "How long does shipping usually take?", "a")
    b = _turn(runner, "How long does shipping usually take?", "b")
    assert a.success and b.success and runner.visited[-1] == "persist" and len(runner.visited) > 2
    assert runner.deps.sessions.get("t1", "retail", "s1").turn_count == 2


def test_same_turn_id_in_another_session_or_tenant_is_a_different_turn(runner):
    _turn(runner, "How long does shipping usually take?", "x")
    other_session = _turn(runner, "How long does shipping usually take?", "x", session="s2")
    other_tenant = _turn(runner, "How long does shipping usually take?", "x", tenant="t2")
    assert other_session.success and other_tenant.success
    assert runner.deps.turns.list_for_session("t2", "retail", "s1")[0].turn_id == "x"


def test_same_turn_id_with_another_message_is_refused(runner):
    _turn(runner, "How long does shipping usually take?", "k")
    reused = _turn(runner, "I'd like a refund for my order", "k")
    assert not reused.success and reused.error["code"] == "turn_id_reused"
    assert runner.visited == ["sensor", "persist"]
    assert runner.deps.sessions.get("t1", "retail", "s1").turn_count == 1


def test_a_concurrent_duplicate_is_told_the_turn_is_in_progress(runner):
    request = TurnRequest(tenant_id="t1", agent_id="retail", session_id="s1", customer_id="c-100", turn_id="p", message="hello")
    agent = runner.deps.configs.get_agent("t1", "retail")
    begun = runner.deps.idempotency.begin(request, runner.deps.clock(), lease_s(agent))  # the first request is still running
    assert begun.outcome == "new" and begun.owner
    duplicate = _turn(runner, "hello", "p")
    assert not duplicate.success and duplicate.error["code"] == "turn_in_progress"
    assert duplicate.error["retry_after_s"] == round(lease_s(agent))
    assert runner.deps.turns.list_for_session("t1", "retail", "s1") == []  # the first one records, not this one


def test_the_lease_end_lets_a_retry_run(runner):
    request = TurnRequest(tenant_id="t1", agent_id="retail", session_id="s1", customer_id="c-100", turn_id="p", message="hello")
    agent = runner.deps.configs.get_agent("t1", "retail")
    runner.deps.idempotency.begin(request, runner.deps.clock(), lease_s(agent))  # a turn whose process died
    runner.deps.clock.advance(lease_s(agent))
    assert _turn(runner, "hello", "p").success


def test_a_failed_turn_is_recorded_and_its_repeat_returns_the_failure_without_rerunning(runner, monkeypatch):
    import focal.stages.retrieve as retrieve

    def boom(state, deps):
        raise RuntimeError("index down")

    monkeypatch.setattr(retrieve, "run", boom)
    failed = _turn(runner, "How long does shipping usually take?", "f")
    assert failed.execution_path == "fallback" and runner.visited[-1] == "fallback"
    monkeypatch.undo()
    again = _turn(runner, "How long does shipping usually take?", "f")
    assert _same(again, failed) and runner.visited == ["sensor", "persist"]
    assert [r.turn_id for r in runner.deps.turns.list_for_session("t1", "retail", "s1")] == ["f"]


# --- session conflicts -------------------------------------------------------------------------

def test_session_conflict_answers_with_a_code_records_the_turn_and_keeps_the_winner(runner, monkeypatch):
    _turn(runner, "I'd like a refund for my order", "c-1")
    sessions = runner.deps.sessions
    original_save = sessions.save
    raced = {"done": False}

    def racing_save(session, expected_version):
        if not raced["done"]:  # another turn of this session lands between this turn's read and write
            raced["done"] = True
            winner = sessions.get("t1", "retail", "s1")
            winner.slots["order_id"] = "A1002"
            original_save(winner, expected_version=winner.version)
        return original_save(session, expected_version=expected_version)

    monkeypatch.setattr(sessions, "save", racing_save)
    result = _turn(runner, "It's A1001", "c-2")
    assert not result.success and result.error == {
        "code": "session_conflict", "message": result.response, "stage": "persist"}
    stored = sessions.get("t1", "retail", "s1")
    assert stored.slots.get("order_id") == "A1002"  # the winner's flow state, not merged
    assert stored.turn_count == 2 and stored.version == 3  # counted by a separate append-only write
    records = runner.deps.turns.list_for_session("t1", "retail", "s1")
    assert [(r.turn_id, r.turn_number) for r in records] == [("c-1", 1), ("c-2", 2)]
    assert records[1].result.error["code"] == "session_conflict"
    assert _same(_turn(runner, "It's A1001", "c-2"), result)  # a repeat gets the same answer


def test_count_turn_gives_up_after_bounded_attempts(runner, monkeypatch):
    from focal.models.turn import TurnState
    from focal.stages import persist

    attempts = []

    def always_conflict(session, expected_version):
        attempts.append(expected_version)
        raise VersionConflict("raced")

    monkeypatch.setattr(runner.deps.sessions, "save", always_conflict)
    state = TurnState(request=TurnRequest(tenant_id="t1", agent_id="retail", session_id="s1", turn_id="z", message="hi"))
    assert persist.count_turn(state, runner.deps) == 0 and len(attempts) == persist.COUNT_ATTEMPTS


# --- profile migration -------------------------------------------------------------------------

def test_a_v1_profile_is_migrated_on_read_and_saved_at_persist(tmp_path):
    runner = _runner(tmp_path, profile_schema_version=2)
    runner.deps.profiles.save(CustomerProfile(
        tenant_id="t1", agent_id="retail", customer_id="c-100", schema_version=1,
        fields={"loyalty_points": 120, "favourite_colour": "green"}))
    assert _turn(runner, "How long does shipping usually take?", "m-1").success
    stored = runner.deps.profiles.get("t1", "retail", "c-100")
    assert stored.schema_version == 2
    assert stored.fields == {"is_premium": False}  # undeclared dropped, the declared profile field defaulted
    record = runner.deps.turns.list_for_session("t1", "retail", "s1")[0]
    assert record.state["sensor"]["profile_migration"] == {
        "from_version": 1, "to_version": 2, "applied": True, "dropped": ["loyalty_points", "favourite_colour"],
        "defaulted": ["is_premium"], "coerced": [], "invalid": []}
    _turn(runner, "thanks", "m-2")
    assert runner.deps.turns.list_for_session("t1", "retail", "s1")[1].state["sensor"]["profile_migration"] is None


# --- the DynamoDB idempotency store (conditional writes, moto) -----------------------------------

@pytest.fixture
def dynamo_idempotency(monkeypatch):
    from moto import mock_aws

    from focal.wiring import dynamodb_idempotency
    from store_fixtures import FAKE_AWS_ENV

    for key, value in FAKE_AWS_ENV.items():
        monkeypatch.setenv(key, value)
    with mock_aws():
        client = claims_table("t-idem")
        yield dynamodb_idempotency("t-idem"), client


def _result(turn_id: str, response: str) -> TurnResult:
    from focal.models.turn import TurnState

    state = TurnState(request=TurnRequest(tenant_id="t1", agent_id="a", session_id="s", turn_id=turn_id, message="m"))
    state.response = response
    return state.to_result()


NOW, LEASE = 1_800_000_000.0, 30.0


def test_dynamodb_claims_begin_in_progress_complete_replay_and_reuse(dynamo_idempotency):
    idem, client = dynamo_idempotency
    request = TurnRequest(tenant_id="t1", agent_id="a", session_id="s", turn_id="1", message="m")
    first = idem.begin(request, NOW, LEASE)
    assert first.outcome == "new"
    assert (idem.begin(request, NOW + 1, LEASE).outcome, idem.begin(request, NOW + 1, LEASE).retry_after_s) == ("in_progress", 29)
    assert idem.complete(request, first.owner, _result("1", "first answer"), NOW + 2)
    replay = idem.begin(request, NOW + 3, LEASE)
    assert replay.outcome == "replayed" and replay.result.response == "first answer"
    assert idem.begin(request.model_copy(update={"message": "other"}), NOW + 3, LEASE).outcome == "key_reused"
    other_tenant = request.model_copy(update={"tenant_id": "t2"})
    assert idem.begin(other_tenant, NOW + 3, LEASE).outcome == "new"
    keys = sorted(item["pk"]["S"] for item in client.scan(TableName="t-idem")["Items"])
    assert keys[0].startswith("TENANT#t1#TURN#") and keys[1].startswith("TENANT#t2#TURN#")
    item = next(i for i in client.scan(TableName="t-idem")["Items"] if i["pk"]["S"].startswith("TENANT#t1#"))
    assert int(item["expires_at"]["N"]) == NOW + 2 + 24 * 3600  # the TTL attribute, from the completion
    assert "m" not in item["payload_hash"]["S"] and len(item["payload_hash"]["S"]) == 64  # payload stored hashed


def test_dynamodb_claims_let_a_retry_run_after_the_lease(dynamo_idempotency):
    idem, _ = dynamo_idempotency
    request = TurnRequest(tenant_id="t1", agent_id="a", session_id="s", turn_id="1", message="m")
    assert idem.begin(request, NOW, LEASE).outcome == "new"
    assert idem.begin(request, NOW + LEASE - 0.001, LEASE).outcome == "in_progress"
    assert idem.begin(request, NOW + LEASE, LEASE).outcome == "taken_over"
