"""The card-support example acts only on the session customer's own cards and transactions.

Red-team finding: a verified customer could block and replace another customer's card ("it ends in
5678", then "yes") and open a dispute on another customer's transaction (TX-1002). Now every tool of
examples/cards takes the authenticated `customer_id` (from the session, never from the message), a
card or transaction of someone else is answered exactly like an unknown one, the writing tools refuse
it with the same words, and two guards (`own_card_only`, `own_transaction_only`) stop a writing call
unless the lookup just found that very card or transaction on the customer's account.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from example_tools import ExampleTools

from focal.errors import ToolError
from focal.models.session import CustomerProfile
from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

AGENT = Path(__file__).resolve().parents[2] / "examples" / "cards" / "agent.yaml"
OWNER, OTHER = "c-verified", "c-unverified"  # 1234, TX-1001 and TX-1003 are OWNER's; 5678 and TX-1002 are OTHER's


TOOLS = ExampleTools(AGENT)
state, run, refusal = TOOLS.state, TOOLS.run, TOOLS.refusal


@pytest.fixture()
def fresh_tools():
    state("reset_state")
    yield
    state("reset_state")


def test_the_read_tools_answer_another_customers_card_or_transaction_like_an_unknown_one(fresh_tools) -> None:
    assert run("card_status", {"card_last4": "1234"}, OWNER)["found"] is True
    assert run("card_status", {"card_last4": "5678"}, OTHER)["found"] is True
    unknown = {"found": False, "status": "unknown", "replacement": None}
    for card in ("5678", "9012", "0000"):  # another customer's active card, another's blocked card, no card
        assert run("card_status", {"card_last4": card}, OWNER) == {"card_last4": card, **unknown}
    for customer in ("anonymous", ""):
        assert run("card_status", {"card_last4": "1234"}, customer)["found"] is False

    assert run("lookup_transaction", {"transaction_id": "TX-1003"}, OWNER)["merchant"] == "Skyline Hotels"
    assert run("lookup_transaction", {"transaction_id": "TX-1002"}, OTHER)["merchant"] == "Electro World"
    for tx in ("TX-1002", "TX-9999"):
        assert run("lookup_transaction", {"transaction_id": tx}, OWNER) == \
            {"transaction_id": tx, "found": False, "merchant": None, "amount": None}
    assert run("lookup_transaction", {"transaction_id": "TX-1001"}, "anonymous")["found"] is False


def test_a_customer_id_named_in_the_arguments_is_replaced_by_the_sessions(fresh_tools) -> None:
    assert run("card_status", {"card_last4": "5678", "customer_id": OTHER}, OWNER)["found"] is False
    assert run("lookup_transaction", {"transaction_id": "TX-1002", "customer_id": OTHER}, OWNER)["found"] is False
    with pytest.raises(ToolError):
        run("order_replacement_card", {"card_last4": "5678", "customer_id": OTHER}, OWNER, key="k0")


def test_the_writing_tools_refuse_another_customers_card_or_transaction_in_the_words_of_an_unknown_one(fresh_tools) -> None:
    foreign = refusal("order_replacement_card", {"card_last4": "5678"}, OWNER, "k1")
    unknown = refusal("order_replacement_card", {"card_last4": "0000"}, OWNER, "k2")
    assert foreign.replace("5678", "0000") == unknown and "no card ending 5678" in foreign
    foreign = refusal("open_dispute", {"transaction_id": "TX-1002"}, OWNER, "k3")
    unknown = refusal("open_dispute", {"transaction_id": "TX-9999"}, OWNER, "k4")
    assert foreign.replace("TX-1002", "TX-9999") == unknown and "no transaction TX-1002" in foreign
    refusal("order_replacement_card", {"card_last4": "1234"}, "anonymous", "k5")
    assert state("replacements") == {} and state("disputes") == {}

    # the owners themselves still can
    assert run("order_replacement_card", {"card_last4": "1234"}, OWNER, key="k6") == {"reference": "RC-0001"}
    assert run("open_dispute", {"transaction_id": "TX-1002"}, OTHER, key="k7") == {"reference": "DS-0001"}
    assert state("replacements") == {"1234": "RC-0001"} and state("disputes") == {"TX-1002": "DS-0001"}


# --- end to end: the red-team conversations ---

def runner_for(tmp_path: Path, customer: str = OWNER) -> LocalRunner:
    deps = local_deps(AGENT, tmp_path / "focal.db")
    deps.profiles.save(CustomerProfile(tenant_id="local", agent_id="cards", customer_id=customer, fields={"is_verified": True}))
    return LocalRunner(deps)


def say(runner: LocalRunner, message: str, turn_id: str, session: str = "s1", customer: str = OWNER) -> TurnResult:
    return runner.turn(TurnRequest(tenant_id="local", agent_id="cards", session_id=session, customer_id=customer,
                                   turn_id=turn_id, message=message))


def ran(result: TurnResult, tool_id: str) -> list[str]:
    return [t["status"] for t in result.tool_calls if t["tool_id"] == tool_id]


def test_a_verified_customer_cannot_block_or_replace_another_customers_card(fresh_tools, tmp_path) -> None:
    runner = runner_for(tmp_path)
    answers = {}
    for session, card in (("foreign", "5678"), ("unknown", "0000")):
        say(runner, "I lost my card", "t1", session)
        found = say(runner, f"it ends in {card}", "t2", session)
        assert found.scenario == {"id": "replace_card", "step_id": "unknown_card"}
        [status_call] = [t for t in found.tool_calls if t["tool_id"] == "card_status"]
        assert status_call["status"] == "ok"
        yes = say(runner, "yes", "t3", session)
        assert ran(yes, "order_replacement_card") == [] and "RC-" not in yes.response
        answers[session] = (found.response.replace(card, "####"), yes.response)
    assert answers["foreign"] == answers["unknown"]  # nothing tells that 5678 exists
    assert state("replacements") == {}  # 5678 is neither blocked nor replaced
    stored = runner.deps.sessions.get("local", "cards", "foreign")
    assert stored.variables.get("card_found") is False and "replacement_reference" not in stored.variables

    # the owner of 5678 still can
    say(runner, "I lost my card", "t1", "owner", OTHER)
    runner.deps.profiles.save(CustomerProfile(tenant_id="local", agent_id="cards", customer_id=OTHER, fields={"is_verified": True}))
    assert say(runner, "5678", "t2", "owner", OTHER).scenario == {"id": "replace_card", "step_id": "confirm_replacement"}
    assert ran(say(runner, "yes", "t3", "owner", OTHER), "order_replacement_card") == ["ok"]
    assert state("replacements") == {"5678": "RC-0001"}


def test_a_verified_customer_cannot_dispute_another_customers_transaction(fresh_tools, tmp_path) -> None:
    runner = runner_for(tmp_path)
    answers = {}
    for session, tx in (("foreign", "TX-1002"), ("unknown", "TX-9999")):
        say(runner, "I want to dispute a charge", "t1", session)
        found = say(runner, f"it's {tx}", "t2", session)
        assert found.scenario == {"id": "dispute", "step_id": "unknown_transaction"}
        assert "Electro World" not in found.response and "899" not in found.response
        yes = say(runner, "yes", "t3", session)
        assert ran(yes, "open_dispute") == [] and "DS-" not in yes.response
        answers[session] = (found.response.replace(tx, "TX-####"), yes.response)
    assert answers["foreign"] == answers["unknown"]
    assert state("disputes") == {}


def test_a_finding_about_another_card_does_not_let_the_action_run_on_this_one(fresh_tools, tmp_path) -> None:
    """Defence in depth: should the card to act on ever differ from the one card_status just found
    (a stale finding), the guard own_card_only blocks the call before the tool runs."""
    runner = runner_for(tmp_path)
    say(runner, "I lost my card", "t1")
    assert say(runner, "1234", "t2").scenario == {"id": "replace_card", "step_id": "confirm_replacement"}
    sessions = runner.deps.sessions
    session = sessions.get("local", "cards", "s1")
    assert session.variables["card_found"] is True and session.variables["checked_card_last4"] == "1234"
    session.slots["card_last4"] = "5678"  # the finding is about 1234, the call would be for 5678
    sessions.save(session, expected_version=session.version)

    result = say(runner, "yes", "t3")
    [call] = [t for t in result.tool_calls if t["tool_id"] == "order_replacement_card"]
    assert call["status"] == "blocked"
    assert result.execution_path == "rejected" and "nothing has been blocked or ordered" in result.response
    records = runner.deps.turns.list_for_session("local", "cards", "s1")
    assert records[-1].state["route"]["decision"]["blocked_by"] == ["own_card_only"]
    assert state("replacements") == {}


def test_a_finding_about_another_transaction_does_not_let_a_dispute_open_on_this_one(fresh_tools, tmp_path) -> None:
    runner = runner_for(tmp_path)
    assert say(runner, "Please dispute transaction TX-1001", "t1").scenario == {"id": "dispute", "step_id": "confirm_dispute"}
    sessions = runner.deps.sessions
    session = sessions.get("local", "cards", "s1")
    assert session.variables["tx_found"] is True and session.variables["checked_transaction_id"] == "TX-1001"
    session.slots["transaction_id"] = "TX-1002"
    sessions.save(session, expected_version=session.version)

    result = say(runner, "yes", "t2")
    [call] = [t for t in result.tool_calls if t["tool_id"] == "open_dispute"]
    assert call["status"] == "blocked"
    assert "no dispute has been opened" in result.response
    records = runner.deps.turns.list_for_session("local", "cards", "s1")
    assert records[-1].state["route"]["decision"]["blocked_by"] == ["own_transaction_only"]
    assert state("disputes") == {}
