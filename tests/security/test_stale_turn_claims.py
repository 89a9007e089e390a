"""A turn whose process was killed (`kill -9` of `focal serve`, a Lambda that died) leaves its claim on the
turn id. The claim has an owner and a lease (the turn budget + a grace): a retry of the same turn id is
told `turn_in_progress` (with Retry-After) within the lease, and takes the claim over after it and runs
the turn, exactly once — the old owner can neither renew, complete nor record anything afterwards, and a
side effect the dead execution may have made is not repeated.

Both claim stores (SQLite, DynamoDB under moto) and the pipeline (LocalRunner on SQLite). Time comes
from a clock the test moves; nothing sleeps.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from held_clock import claims_table, retail_runner

from focal.cli.serve_api import turn_reply
from focal.dialogue.tool_calls import NOT_REPEATED, execute, prepare
from focal.models.turn import TurnRequest, TurnResult, TurnState
from focal.pipeline.runner import LocalRunner
from focal.pipeline.stage_io import run_stage
from focal.ports import TurnClaim
from focal.stages import fallback, tools
from focal.turn.budget import turn_budget_s
from focal.turn.definition import STAGE_NAMES, next_stage
from focal.turn.idempotency import CLAIM_GRACE_S, TurnIdempotency, lease_s

NOW, LEASE = 1_800_000_000.0, 30.0



class CountingTools:
    """The real tool runner, recording each call's tool id and idempotency key."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def run(self, agent, tool, arguments, context=None):
        self.calls.append((tool.id, context.idempotency_key if context else None))
        return self.inner.run(agent, tool, arguments, context)

    def count(self, tool_id: str) -> int:
        return sum(1 for t, _ in self.calls if t == tool_id)


# --- the claim stores ------------------------------------------------------------------------------

@pytest.fixture(params=["sqlite", "dynamodb"])
def idempotency(request, tmp_path, monkeypatch):
    if request.param == "sqlite":
        from focal.adapters.sqlite_idempotency import SqliteTurnClaims
        from focal.adapters.sqlite_store import SqliteDatabase

        yield TurnIdempotency(SqliteTurnClaims(SqliteDatabase(tmp_path / "claims.db")))
        return
    from moto import mock_aws

    from focal.adapters.dynamodb_idempotency import DynamoTurnClaims

    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(key, value)
    with mock_aws():
        client = claims_table("idem")
        yield TurnIdempotency(DynamoTurnClaims("idem", client))


def _request(message: str = "hello", turn_id: str = "t-1") -> TurnRequest:
    return TurnRequest(tenant_id="t1", agent_id="a", session_id="s", customer_id="c", turn_id=turn_id, message=message)


def _result(response: str) -> TurnResult:
    state = TurnState(request=_request())
    state.response = response
    return state.to_result()


def test_a_dead_owners_claim_blocks_within_its_lease_and_is_taken_over_after(idempotency):
    dead = idempotency.begin(_request(), NOW, LEASE)  # then the process is killed: nothing completes it
    assert dead.outcome == "new"
    early = idempotency.begin(_request(), NOW + 10, LEASE)
    assert (early.outcome, early.owner, early.retry_after_s) == ("in_progress", None, 20)
    last = idempotency.begin(_request(), NOW + LEASE - 0.5, LEASE)
    assert (last.outcome, last.retry_after_s) == ("in_progress", 1)
    retry = idempotency.begin(_request(), NOW + LEASE, LEASE)
    assert retry.outcome == "taken_over" and retry.owner not in (None, dead.owner)
    again = idempotency.begin(_request(), NOW + LEASE + 1, LEASE)  # the new owner's lease holds in turn
    assert (again.outcome, again.retry_after_s) == ("in_progress", LEASE - 1)


def test_the_old_owner_can_neither_renew_nor_complete_a_taken_over_claim(idempotency):
    dead = idempotency.begin(_request(), NOW, LEASE)
    retry = idempotency.begin(_request(), NOW + LEASE + 5, LEASE)
    assert not idempotency.hold(_request(), dead.owner, NOW + LEASE + 6)
    assert not idempotency.complete(_request(), dead.owner, _result("the dead owner's late answer"), NOW + LEASE + 7)
    assert idempotency.hold(_request(), retry.owner, NOW + LEASE + 8)
    assert idempotency.complete(_request(), retry.owner, _result("the answer"), NOW + LEASE + 9)
    assert not idempotency.complete(_request(), dead.owner, _result("the dead owner's late answer"), NOW + LEASE + 10)
    assert not idempotency.complete(_request(), retry.owner, _result("a second answer"), NOW + LEASE + 11)
    replay = idempotency.begin(_request(), NOW + LEASE + 12, LEASE)
    assert replay.outcome == "replayed" and replay.result.response == "the answer"


def test_a_lease_held_past_its_end_by_a_live_owner_renews_before_its_writes(idempotency):
    live = idempotency.begin(_request(), NOW, LEASE)
    assert idempotency.hold(_request(), live.owner, NOW + LEASE - 1)  # persist starts just before the lease ends
    held = idempotency.begin(_request(), NOW + LEASE, LEASE)
    assert (held.outcome, held.retry_after_s) == ("in_progress", CLAIM_GRACE_S - 1)
    assert idempotency.complete(_request(), live.owner, _result("done"), NOW + LEASE + 1)


def test_another_message_never_takes_over_a_turn_id_even_after_the_lease(idempotency):
    idempotency.begin(_request("refund my order"), NOW, LEASE)
    assert idempotency.begin(_request("cancel everything"), NOW + LEASE + 100, LEASE).outcome == "key_reused"


def test_a_record_past_its_expiry_frees_the_turn_id(idempotency):
    first = idempotency.begin(_request(), NOW, LEASE)
    idempotency.complete(_request(), first.owner, _result("old"), NOW + 1)
    later = NOW + 1 + idempotency.expires_after_s
    assert idempotency.begin(_request("a new day"), later, LEASE).outcome == "new"


def test_claims_are_kept_per_tenant(idempotency):
    idempotency.begin(_request(), NOW, LEASE)
    other = _request().model_copy(update={"tenant_id": "t2"})
    assert idempotency.begin(other, NOW + 1, LEASE).outcome == "new"


def test_a_claim_store_answers_the_record_it_checked(idempotency):
    store = idempotency.store
    claim = TurnClaim(tenant_id="t1", key="k1", payload_hash="p", owner="o1", status="in_progress",
                      lease_until=NOW + LEASE, expires_at=NOW + 3600)
    assert store.acquire(claim, NOW) == (True, None)
    written, found = store.acquire(TurnClaim(**{**claim.__dict__, "owner": "o2"}), NOW + 1)
    assert not written and found.owner == "o1" and found.status == "in_progress"


# --- the pipeline -----------------------------------------------------------------------------------

def _runner(tmp_path: Path, tool_changes: dict | None = None, **agent_changes) -> LocalRunner:
    return retail_runner(tmp_path, CountingTools, tool_changes, **agent_changes)


def _req(message: str, turn_id: str) -> TurnRequest:
    return TurnRequest(tenant_id="t1", agent_id="retail", session_id="s1", customer_id="c-100",
                       turn_id=turn_id, message=message)


def _until(runner: LocalRunner, request: TurnRequest, stop: str) -> dict:
    """An execution's stages up to (not including) `stop`: what a process killed there had done."""
    event, stage = {"request": request.model_dump(mode="json")}, STAGE_NAMES[0]
    while stage != stop:
        assert stage is not None, f"the turn never reached {stop}"
        event = run_stage(stage, event, runner.deps)
        stage = next_stage(stage, (event.get("control") or {}).get("next"))
    return event


def _records(runner: LocalRunner) -> list[str]:
    return [r.turn_id for r in runner.deps.turns.list_for_session("t1", "retail", "s1")]


def _lease(runner: LocalRunner) -> float:
    return lease_s(runner.deps.configs.get_agent("t1", "retail"))


def test_a_turn_left_by_a_killed_server_is_refused_within_its_lease_then_runs_exactly_once(tmp_path):
    runner = _runner(tmp_path)
    assert _lease(runner) == turn_budget_s(runner.deps.configs.get_agent("t1", "retail")) + CLAIM_GRACE_S
    _until(runner, _req("How long does shipping usually take?", "k"), "persist")  # killed before persist
    runner.deps.clock.advance(5)
    early = runner.turn(_req("How long does shipping usually take?", "k"))
    assert early.error["code"] == "turn_in_progress" and runner.visited == ["sensor", "persist"]
    assert early.error["retry_after_s"] == round(_lease(runner)) - 5
    reply = turn_reply(early.model_dump(mode="json"), "req-1")
    assert reply.status == 409 and reply.headers["Retry-After"] == str(round(_lease(runner)) - 5)
    assert _records(runner) == []

    runner.deps.clock.advance(_lease(runner) - 5)  # the lease has ended: the owner is presumed dead
    answered = runner.turn(_req("How long does shipping usually take?", "k"))
    assert answered.success and answered.error is None and runner.visited[-1] == "persist"
    assert _records(runner) == ["k"]
    assert runner.deps.sessions.get("t1", "retail", "s1").turn_count == 1
    replay = runner.turn(_req("How long does shipping usually take?", "k"))
    assert runner.visited == ["sensor", "persist"] and replay.response == answered.response
    assert _records(runner) == ["k"]


def test_the_lease_follows_the_turn_budget_setting(tmp_path, monkeypatch):
    from focal.settings import get_settings

    monkeypatch.setenv("FOCAL_TURN_BUDGET_S", "100")
    get_settings.cache_clear()
    try:
        runner = _runner(tmp_path)
        assert _lease(runner) == 100 + CLAIM_GRACE_S
        _until(runner, _req("hello", "b"), "retrieve")  # killed right after the sensor claimed the turn
        runner.deps.clock.advance(100)
        assert runner.turn(_req("hello", "b")).error["code"] == "turn_in_progress"
        runner.deps.clock.advance(CLAIM_GRACE_S)
        assert runner.turn(_req("hello", "b")).success and _records(runner) == ["b"]
    finally:
        monkeypatch.delenv("FOCAL_TURN_BUDGET_S")
        get_settings.cache_clear()


def test_an_owner_that_outlived_its_lease_can_neither_record_nor_answer_for_the_turn(tmp_path):
    runner = _runner(tmp_path)
    slow = _until(runner, _req("How long does shipping usually take?", "s"), "persist")  # stalls before persist
    runner.deps.clock.advance(_lease(runner) + 1)
    retried = runner.turn(_req("How long does shipping usually take?", "s"))  # takes the claim over
    assert retried.success and _records(runner) == ["s"]
    session = runner.deps.sessions.get("t1", "retail", "s1")

    late = run_stage("persist", slow, runner.deps)  # the stalled execution wakes up and persists
    assert late["result"]["error"]["code"] == "turn_in_progress" and late["result"]["error"]["stage"] == "persist"
    failed = fallback.handle({**slow, "caught": {"Error": "RuntimeError"}}, runner.deps)  # or fails and falls back
    assert failed["result"]["error"]["code"] == "turn_in_progress"
    assert _records(runner) == ["s"]  # exactly one turn recorded: the new owner's
    record = runner.deps.turns.list_for_session("t1", "retail", "s1")[0]
    assert record.state["sensor"]["claim_owner"] != slow["sensor"]["claim_owner"]
    after = runner.deps.sessions.get("t1", "retail", "s1")
    assert (after.version, after.turn_count) == (session.version, 1)  # nothing of the late owner landed
    replay = runner.turn(_req("How long does shipping usually take?", "s"))
    assert runner.visited == ["sensor", "persist"] and replay.response == retried.response


@pytest.mark.parametrize("flat", [False, True], ids=["sectioned", "flat"])
def test_a_fallback_on_an_event_it_cannot_read_still_completes_the_turn_as_its_claims_owner(tmp_path, flat):
    runner = _runner(tmp_path)
    event = _until(runner, _req("How long does shipping usually take?", "u"), "persist")
    owner = event["sensor"]["claim_owner"]
    event["route"] = {"decision": {"action": "no such action"}}  # a part of the document that does not validate
    if flat:  # an execution in flight across the deployment that grouped the state: its claim token at the top
        event = {**{k: v for k, v in event.items() if k != "sensor"}, "claim_owner": owner}
    failed = fallback.handle({**event, "caught": {"Error": "RuntimeError"}}, runner.deps)
    assert failed["sensor"]["claim_owner"] == owner and failed["result"]["error"]["code"] == "stage_failed:RuntimeError"
    assert _records(runner) == ["u"]
    replay = runner.turn(_req("How long does shipping usually take?", "u"))  # completed by its owner: answered again
    assert runner.visited == ["sensor", "persist"] and replay.response == failed["result"]["response"]


def _dead_refund(runner: LocalRunner) -> None:
    """Turn t-3 ("yes") claims the session for a side effect and runs issue_refund, then its process dies."""
    runner.turn(_req("I'd like a refund for my order", "t-1"))
    runner.turn(_req("It's A1001", "t-2"))
    event = _until(runner, _req("yes", "t-3"), "tools")
    state = TurnState.model_validate(event)
    agent = runner.deps.configs.get_agent("t1", "retail")
    assert tools.claim(state, runner.deps, None)  # as an action does before its first side effect
    call = execute(state, agent, runner.deps, prepare(state, agent, "issue_refund", "rule r", confirmed=True))
    assert call.status == "ok" and runner.deps.tools.count("issue_refund") == 1


@pytest.mark.parametrize("gates", [True, False])
def test_a_rerun_of_a_dead_turn_does_not_repeat_a_side_effect_it_may_have_made(tmp_path, gates):
    runner = _runner(tmp_path, features={"approval_gates": gates})
    _dead_refund(runner)
    runner.deps.clock.advance(_lease(runner))
    rerun = runner.turn(_req("yes", "t-3"))
    assert runner.deps.tools.count("issue_refund") == 1  # not called again
    assert rerun.approval_state == "none"  # nor sent for approval: an approved call would run it again
    refund = next(c for c in rerun.tool_calls if c["tool_id"] == "issue_refund")
    assert refund["status"] == "unknown" and refund["error"] == NOT_REPEATED
    assert "RF-A1001" not in rerun.response  # nothing claims the refund went through
    assert _records(runner) == ["t-1", "t-2", "t-3"]
    later = runner.turn(_req("yes", "t-4"))  # the flow waits at the refund: not run, not taken as done
    assert later.tool_calls == [] and "RF-A1001" not in later.response and runner.deps.tools.count("issue_refund") == 1


def test_a_rerun_repeats_a_call_declared_idempotent_with_the_same_key(tmp_path):
    # no approval gate: an approved call runs under the approval's own turn id, so with its own key
    runner = _runner(tmp_path, {"issue_refund": {"idempotent": True}}, features={"approval_gates": False})
    _dead_refund(runner)
    runner.deps.clock.advance(_lease(runner))
    rerun = runner.turn(_req("yes", "t-3"))
    keys = [key for tool_id, key in runner.deps.tools.calls if tool_id == "issue_refund"]
    assert len(keys) == 2 and keys[0] == keys[1]  # the tool's own system answers the repeat with its first result
    assert "RF-A1001" in rerun.response
    assert _records(runner) == ["t-1", "t-2", "t-3"]
