"""A request for a person in English is read like the other languages, by its meaning in the multilingual space
(focal.sensing.person_request), through the real pipeline of an English-only agent with the real models: a request
in words no phrase table holds reaches the hand-off; a sentence that only mentions a person, a human or someone
talked to does not (the English phrase table handed these off). None of these sentences is an exemplar."""

from __future__ import annotations

from pathlib import Path

import pytest
from first_turn import first_turn

from focal.sensing.person_exemplars import ASKING, NEAR_MISSES
from focal.wiring import local_deps

AGENT = Path(__file__).resolve().parents[2] / "examples" / "airline" / "agent.yaml"

REQUESTS = [
    "Could you transfer me to somebody on your staff?",
    "I'm done with the bot, I need a person.",
    "I'd like to be put through to a live agent.",
]
NEAR_MISSES_SAID = [
    "I spoke to a real person last time and it went well.",
    "Does a human review these requests?",
    "Is a human or a machine answering me right now?",
]


@pytest.fixture(scope="module")
def deps():
    return local_deps(AGENT, ":memory:")


def _turn(deps, session: str, message: str):
    return first_turn(deps, "airline", session, message)


def test_no_sentence_here_is_an_exemplar():
    exemplars = {t.lower() for table in (ASKING, NEAR_MISSES) for texts in table.values() for t in texts}
    assert not {t.lower() for t in REQUESTS + NEAR_MISSES_SAID} & exemplars


@pytest.mark.parametrize("message", REQUESTS)
def test_an_english_request_for_a_person_in_other_words_reaches_the_handoff(deps, message):
    result = _turn(deps, f"ask-{abs(hash(message))}", message)
    assert "HumanHandoff" in [c["name"] for c in result.commands], result.commands
    assert result.execution_path == "escalate"


@pytest.mark.parametrize("message", NEAR_MISSES_SAID)
def test_an_english_sentence_that_only_mentions_a_person_is_not_handed_off(deps, message):
    result = _turn(deps, f"near-{abs(hash(message))}", message)
    assert "HumanHandoff" not in [c["name"] for c in result.commands], result.commands
    assert result.execution_path != "escalate"


def test_an_english_turn_goes_on_without_the_multilingual_model_and_says_the_request_was_not_read(deps):
    import dataclasses

    without = dataclasses.replace(deps, multilingual_embedder=None)
    result = _turn(without, "no-model", REQUESTS[0])
    assert result.success and result.error is None
    assert "HumanHandoff" not in [c["name"] for c in result.commands]
    assert result.degraded == ["person_request"]
