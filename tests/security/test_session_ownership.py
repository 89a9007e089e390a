"""A session belongs to the customer who opened it; its id, chosen by the client, proves nothing.

Red-team finding: sessions were keyed by tenant, agent and session id only, and the turn loaded the
profile of the session's owner. A second customer who sent turns to the first one's session id
acted with the owner's privileges (a Premium customer's $120 refund, a verified customer's card
replacement), and an anonymous caller saw the owner's pending confirmation and could answer it.
Now such a turn is refused (`session_not_yours`) before anything is read or run, and nothing of it
is written to that session; a customer signing in mid-conversation takes an anonymous session over.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.auth import ANONYMOUS
from focal.dialogue.ownership import FOREIGN_SESSION, ownership
from focal.models.session import CustomerProfile, Session
from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"
OWNER, OTHER = "c-100", "c-200"  # c-100 is Premium in these tests; c-200 is not


def test_ownership_of_a_stored_session():
    mine = Session(tenant_id="t", agent_id="a", session_id="s", customer_id=OWNER)
    anonymous = Session(tenant_id="t", agent_id="a", session_id="s", customer_id=ANONYMOUS)
    assert ownership(None, OTHER) == "new"
    assert ownership(mine, OWNER) == "owner"
    assert ownership(mine, OTHER) == "foreign"
    assert ownership(mine, ANONYMOUS) == "foreign"
    assert ownership(anonymous, OWNER) == "signed_in"
    assert ownership(anonymous, ANONYMOUS) == "owner"


@pytest.fixture()
def runner(tmp_path: Path) -> LocalRunner:
    deps = local_deps(RETAIL, tmp_path / "focal.db")
    deps.profiles.save(CustomerProfile(tenant_id="local", agent_id="retail", customer_id=OWNER,
                                       fields={"is_premium": True}))
    return LocalRunner(deps)


def say(runner: LocalRunner, message: str, turn_id: str, session: str, customer: str) -> TurnResult:
    return runner.turn(TurnRequest(tenant_id="local", agent_id="retail", session_id=session, customer_id=customer,
                                   turn_id=turn_id, message=message))


def test_another_customer_cannot_continue_a_premium_customers_session(runner):
    say(runner, "I want a refund for my order", "t1", "web-100", OWNER)
    before = runner.deps.sessions.get("local", "retail", "web-100")
    assert before is not None and before.customer_id == OWNER

    for i, message in enumerate(("I want a refund for my order", "A1003", "yes"), start=2):
        result = say(runner, message, f"t{i}", "web-100", OTHER)
        assert result.success is False and result.error["code"] == FOREIGN_SESSION
        assert result.execution_path == "rejected" and result.tool_calls == [] and result.scenario is None
        assert "another customer" in result.response

    after = runner.deps.sessions.get("local", "retail", "web-100")
    assert after.model_dump() == before.model_dump()  # nothing of the refused turns was written to it
    assert [r.turn_id for r in runner.deps.turns.list_for_session("local", "retail", "web-100")] == ["t1"]
    assert runner.deps.profiles.get("local", "retail", OTHER) is None


def test_an_anonymous_caller_cannot_see_or_answer_a_pending_confirmation(runner):
    say(runner, "I want a refund for my order", "t1", "web-101", OWNER)
    offer = say(runner, "A1002", "t2", "web-101", OWNER)
    assert "Shall I go ahead" in offer.response
    for i, message in enumerate(("what?", "yes"), start=3):
        result = say(runner, message, f"t{i}", "web-101", ANONYMOUS)
        assert result.error["code"] == FOREIGN_SESSION and "A1002" not in result.response and result.tool_calls == []
    # the owner's confirmation is still pending, untouched
    stored = runner.deps.sessions.get("local", "retail", "web-101")
    assert stored.active_step_id == offer.scenario["step_id"]
    done = say(runner, "yes", "t5", "web-101", OWNER)
    assert [t["status"] for t in done.tool_calls if t["tool_id"] == "issue_refund"] == ["ok"]


def test_a_refused_turn_repeated_with_its_turn_id_gets_the_same_refusal(runner):
    say(runner, "hello", "t1", "s-9", OWNER)
    first = say(runner, "yes", "t2", "s-9", OTHER)
    again = say(runner, "yes", "t2", "s-9", OTHER)
    assert first.error["code"] == again.error["code"] == FOREIGN_SESSION


def test_a_customer_who_signs_in_mid_conversation_takes_the_anonymous_session_over(runner):
    say(runner, "I want a refund for my order", "t1", "web-102", ANONYMOUS)
    signed_in = say(runner, "A1003", "t2", "web-102", OWNER)
    assert signed_in.success and signed_in.error is None
    assert runner.deps.sessions.get("local", "retail", "web-102").customer_id == OWNER
    # from then on the anonymous caller is the foreign one
    assert say(runner, "yes", "t3", "web-102", ANONYMOUS).error["code"] == FOREIGN_SESSION


def test_losing_the_race_for_a_new_session_id_to_another_customer_writes_nothing_into_it(runner):
    """Red team: two customers' first turns on the same new session id; the loser's conflict answer wrote its turn
    record (its message, its tool outputs) into the winner's session."""
    from focal.errors import VersionConflict
    from focal.models.turn import TurnError, TurnState
    from focal.stages import persist

    say(runner, "I want a refund for my order", "t1", "race-1", OWNER)
    loser = TurnState(request=TurnRequest(tenant_id="local", agent_id="retail", session_id="race-1", customer_id=OTHER,
                                          turn_id="t1-other", message="ATTACKER-MARKER where is order A1003"),
                      session=Session(tenant_id="local", agent_id="retail", session_id="race-1", customer_id=OTHER))
    loser.error = TurnError(code=VersionConflict.code, message="conflict", stage="tools")
    persist.run(loser, runner.deps)
    assert loser.sensor.foreign_session and loser.result is not None
    records = runner.deps.turns.list_for_session("local", "retail", "race-1")
    assert [r.customer_id for r in records] == [OWNER]
    stored = runner.deps.sessions.get("local", "retail", "race-1")
    assert all("ATTACKER-MARKER" not in h.text for h in stored.history)
