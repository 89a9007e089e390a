"""A question about who (or what) is answering is no request to be handed to a person: through the real pipeline of
an agent that speaks four languages, with the real models, "Who am I chatting with?" / "¿Con quién hablo?" is not
escalated, while a request for a person in each language still is. None of these sentences is an exemplar
(focal.sensing.person_exemplars holds questions of the same kind, in other words, as near misses)."""

from __future__ import annotations

from pathlib import Path

import pytest
from first_turn import first_turn

from focal.sensing.person_exemplars import ASKING, NEAR_MISSES
from focal.wiring import local_deps

AGENT = Path(__file__).resolve().parents[2] / "examples" / "tutorial" / "agent.yaml"

IDENTITY = [
    "Who am I chatting with?", "Am I talking to a bot?", "Who am I talking to?", "Am I speaking to a robot?",
    "¿Con quién hablo?", "¿Estoy hablando con un bot?", "¿Con quién estoy chateando?",
    "Mit wem spreche ich?", "Spreche ich mit einem Bot?", "Mit wem chatte ich gerade?",
    "À qui je parle ?", "Est-ce que je parle à un robot ?", "Avec qui est-ce que je discute ?",
]
REQUESTS = [
    "Could you transfer me to somebody on your staff?", "¿Me pasas con una persona de verdad?",
    "Kann ich bitte mit jemandem sprechen?", "Puis-je avoir quelqu'un au téléphone ?",
]


@pytest.fixture(scope="module")
def deps():
    return local_deps(AGENT, ":memory:")


def _commands(deps, session: str, message: str):
    result = first_turn(deps, "library", session, message)
    return [c["name"] for c in result.commands], result.execution_path


def test_no_sentence_here_is_an_exemplar():
    exemplars = {t.lower() for table in (ASKING, NEAR_MISSES) for texts in table.values() for t in texts}
    assert not {t.lower() for t in IDENTITY + REQUESTS} & exemplars


@pytest.mark.parametrize("message", IDENTITY)
def test_a_question_about_who_is_answering_is_not_handed_off(deps, message):
    commands, path = _commands(deps, f"who-{abs(hash(message))}", message)
    assert "HumanHandoff" not in commands and path != "escalate", (commands, path)


@pytest.mark.parametrize("message", REQUESTS)
def test_a_request_for_a_person_is_still_handed_off(deps, message):
    commands, path = _commands(deps, f"ask-{abs(hash(message))}", message)
    assert "HumanHandoff" in commands and path == "escalate", (commands, path)
