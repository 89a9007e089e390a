"""The answer a small local model gave under the bounded sensor schema leaves the turn as the offline path has it.

Recorded live (Qwen2.5-Coder-1.5B, grammar on, after focal.sensing.model_sensor.bounded_schema): to "I'd like a
refund for my rain jacket, order A1002" the model closed its list after five empty SetSlot commands (201 tokens,
141 s of generation; unbounded it looped to 414 tokens, 455 s, no reading). A valid answer now, it is merged into
the offline reading: nothing of it may change the flow, the tools or the answer.
"""

from __future__ import annotations

import json
from pathlib import Path

from focal.cli.conversation_tests import TENANT_ID, Conversation, _fresh_deps, start_conversation
from focal.config.loader import load_agent
from focal.models.turn import TurnRequest, TurnResult

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"
EMPTY = {"name": "SetSlot", "flow": None, "slot": None, "value": None, "topic": None}
BOUNDED = json.dumps({"detected_intent": None, "intent_confidence": 0.0, "extracted_entities": {}, "is_ambiguous": False,
                      "ambiguity_reason": None, "commands": [EMPTY] * 5, "conditions": []})
MESSAGE = "I'd like a refund for my rain jacket, order A1002"


def _turn(name: str, sensor: str | None) -> tuple[TurnResult, int]:
    agent = load_agent(RETAIL)
    deps = _fresh_deps(RETAIL, None)
    runner = start_conversation(Conversation(name=name, turns=[], customer_id="c-100"), agent, deps)
    if sensor is not None:
        deps.model.script("sensor", [sensor])
    result = runner.turn(TurnRequest(tenant_id=TENANT_ID, agent_id=agent.id, session_id=name, customer_id="c-100",
                                     turn_id=f"{name}-1", message=MESSAGE))
    return result, len(deps.model.queues.get("sensor") or [])


def test_the_bounded_empty_answer_changes_nothing_of_the_offline_turn():
    offline, _ = _turn("offline-bounded", None)
    result, left = _turn("model-bounded", BOUNDED)
    assert left == 0, "the recorded answer was not read: the turn did not test what it says"
    assert result.scenario == offline.scenario and (result.scenario or {}).get("step_id") == "confirm_refund"
    assert [c["tool_id"] for c in result.tool_calls] == [c["tool_id"] for c in offline.tool_calls] \
        == ["lookup_order", "check_refund_eligibility"]
    assert result.response == offline.response
    assert [c["name"] for c in result.commands] == [c["name"] for c in offline.commands]
