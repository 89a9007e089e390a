"""An id given in a shape near its field's own ("TX-482913" where ids are TX- and four digits) through the real
pipeline on the cards example: said to be wrong and asked again, never "not understood", and no tool runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.models.engine_texts import all_keys
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

CARDS = Path(__file__).resolve().parents[2] / "examples" / "cards" / "agent.yaml"


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    return LocalRunner(local_deps(CARDS, tmp_path_factory.mktemp("cards") / "focal.db"))


def _say(runner: LocalRunner, session: str, message: str):
    return runner.turn(TurnRequest(tenant_id="local", agent_id="cards", session_id=session, customer_id="c-1",
                                   turn_id=f"{session}-{abs(hash(message))}", message=message))



def test_an_id_in_the_wrong_shape_is_said_to_be_wrong_not_misunderstood(runner):
    _say(runner, "bad-id", "Ich möchte eine Abbuchung reklamieren")
    wrong = _say(runner, "bad-id", "Die Transaktion ist TX-482913")
    assert wrong.response.startswith(all_keys()["invalid_value"]["de"])
    assert wrong.scenario == {"id": "dispute", "step_id": "ask_transaction"} and wrong.tool_calls == []
