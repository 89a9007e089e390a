"""Thanks and goodbyes through the real pipeline on the cards example (offline, four languages): a goodbye gets a
goodbye in the customer's language, thanks a "you're welcome", never the scope menu or a clarifying question; a
greeting still gets the agent's own greeting."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.models.engine_texts import all_keys
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

CARDS = Path(__file__).resolve().parents[2] / "examples" / "cards" / "agent.yaml"
CASES = [("en", "Thanks, bye", "farewell"), ("de", "Danke, tschüss", "farewell"), ("es", "Gracias, adiós", "farewell"),
         ("fr", "Merci, au revoir", "farewell"), ("de", "Vielen Dank", "welcome"), ("fr", "merci beaucoup", "welcome")]


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    return LocalRunner(local_deps(CARDS, tmp_path_factory.mktemp("cards") / "focal.db"))


def _say(runner: LocalRunner, session: str, message: str):
    return runner.turn(TurnRequest(tenant_id="local", agent_id="cards", session_id=session, customer_id="c-1",
                                   turn_id=f"{session}-{abs(hash(message))}", message=message))


@pytest.mark.parametrize(("lang", "message", "key"), CASES)
def test_a_courtesy_is_answered_in_kind_and_language(runner, lang, message, key):
    result = _say(runner, f"courtesy-{lang}-{key}", message)
    assert result.response == all_keys()[key][lang]
    assert [c["name"] for c in result.commands] == ["ChitChat"] and result.scenario is None


def test_after_a_flow_a_goodbye_ends_politely(runner):
    _say(runner, "after-flow", "Ich habe meine Karte verloren")
    _say(runner, "after-flow", "abbrechen")
    result = _say(runner, "after-flow", "Danke, auf Wiedersehen")
    assert result.response == all_keys()["farewell"]["de"]


def test_a_greeting_still_introduces_the_agent(runner):
    result = _say(runner, "hello", "Hello")
    assert result.response.startswith("Hi, this is Northbank Card Support")


def test_a_goodbye_in_the_middle_of_a_flow_keeps_the_flow_for_their_return(runner):
    asked = _say(runner, "mid-flow", "Ich möchte eine Abbuchung reklamieren")
    assert asked.scenario == {"id": "dispute", "step_id": "ask_transaction"}
    leaving = _say(runner, "mid-flow", "Danke, tschüss")
    assert leaving.response == all_keys()["farewell"]["de"]
    assert leaving.scenario == asked.scenario and leaving.tool_calls == []
    back = _say(runner, "mid-flow", "TX-1001")
    assert [c["name"] for c in back.commands] == ["SetSlot"] and back.scenario["id"] == "dispute"

