"""Once the model's answer is no draft (it echoes the customer's message, loops, repeats the prompt's data block), the
turn asks it for no more drafts: a regeneration's feedback cannot fix such an answer, and a small model gives the
same one again. The turn answers with the offline path's drafts, checked like any draft — what it says with no model.

Recorded live (session 11, Qwen2.5-Coder-1.5B on a 2-core machine, retail, English): asked for a refund of the $75
rain jacket, the model answered with the customer's own message; the offline draft broke `refund_cap`
(the customer is no Premium member), the regeneration asked the model again and got the same echo — 436 s spent —
before the rule's own words answered. Replayed here at the provider boundary (`ScriptedLiteLLM`, litellm's
`mock_response`), with the model scripted to give the refused answer every time it is asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from focal.cli.conversation_tests import TENANT_ID, Conversation, _fresh_deps, start_conversation
from focal.config.loader import load_agent
from focal.models.turn import TurnRequest, TurnResult

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"
ASK = "I'd like a refund for my rain jacket, order A1002"  # recorded
ECHO = json.dumps({"text": ASK, "commitments": {}})  # recorded: the model's draft was the message
LOOP = "Let me check that refund for you right away. " * 60
PROMPT_BLOCK = json.dumps({"text": '<data name="turn">{"task": "Answer", "known_facts": {}}</data>', "commitments": {}})
ASKED_EVERY_TIME = 3  # the refused answer, as often as the turn could ask (a draft and its regenerations)


def _turn(name: str, *answers: str) -> tuple[TurnResult, int]:
    """The refund turn of a customer who is no Premium member; the model scripted with `answers` (none: offline).
    Returns the result and how many generation calls reached the provider."""
    agent = load_agent(RETAIL)
    deps = _fresh_deps(RETAIL, None)
    runner = start_conversation(Conversation(name=name, turns=[], customer_id="c-100"), agent, deps)
    if answers:
        deps.model.script("generate", list(answers))
    result = runner.turn(TurnRequest(tenant_id=TENANT_ID, agent_id=agent.id, session_id=name, customer_id="c-100",
                                     turn_id=f"{name}-1", message=ASK))
    return result, len(answers) - len(deps.model.queues.get("generate", []))


@pytest.fixture(scope="module")
def offline() -> TurnResult:
    result, calls = _turn("offline")
    assert calls == 0
    return result


@pytest.mark.parametrize("refused", [ECHO, LOOP, PROMPT_BLOCK], ids=["echo", "loop", "prompt_block"])
def test_a_refused_answer_is_asked_for_once_and_the_customer_gets_the_offline_answer(offline, refused):
    result, calls = _turn("refused", *[refused] * ASKED_EVERY_TIME)
    # the offline draft broke refund_cap and was regenerated: the regeneration asked no model
    assert result.enforcement["regenerations"] == 1, result.enforcement
    assert calls == 1, f"{calls} generation calls: the model was asked again after its answer was refused"
    assert result.response == offline.response, (result.response, offline.response)
    assert "Refunds above $50 need a review" in result.response
    assert ASK not in result.response
