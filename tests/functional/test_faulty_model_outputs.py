"""A faulty model never changes what Focal does: every example conversation, replayed with a sensor and a
generation model that answer badly, gets the same enforcement verdicts, tool calls (same tools, same
arguments, same statuses) and blocked tools as the offline run, on every turn, and never crashes.

The faults are what a small model (Qwen2.5 1.5B) was seen to answer: an empty reading (intent null), made-up
entities and slot values, the prompt's data block echoed back, output looping to the token limit, text
that is not JSON, and a timeout or a provider error. They go through litellm's `mock_response`, as the
conversation tests' scripted outputs do, so the real adapter path runs; each fault is scripted on every
turn until a turn consumes it (the fast path makes no call), then the next fault is scripted.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from focal.adapters.litellm_model import ScriptedLiteLLM
from focal.cli.conversation_tests import TENANT_ID, Conversation, _fresh_deps, load_suite, run_setup
from focal.config.loader import load_agent
from focal.models.agent import AgentConfig
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
AGENTS = sorted(p.parent.name for p in EXAMPLES.glob("*/tests.yaml"))
FAULTS = ("null_intent", "invented_entities", "echo", "loop", "invalid_json", "timeout", "provider_error")
# The generation call's faults, in the same rotation: an empty structured answer, a draft that is the prompt's data
# block, a sentence looping to the token limit, JSON cut off, a timeout, a provider error. Each leaves the turn on
# the offline composer, so the customer gets what the offline run said.
GENERATE_FAULTS = {
    "null_intent": '{"text": "", "commitments": {}}',
    "invented_entities": '{"answer": "Sure, done!"}',
    "echo": '{"text": "<data name=\\"turn\\">{\\"task\\": \\"Answer\\", \\"known_facts\\": {}}</data>", "commitments": {}}',
    "loop": "Let me check that for you right away. " * 60,
    "invalid_json": '{"text": "Your request is being hand',
}
GENERATED_NOTE = "generation model gave no usable answer"
# What the trace says for each fault consumed (the sensor's notes).
SAYS = {
    "null_intent": "the model read no intent",
    "invented_entities": "made up",
    "echo": "no reading (it ",
    "loop": "no reading (it ",
    "invalid_json": "invalid",
    "timeout": "sensor model failed",
    "provider_error": "sensor model failed",
}
INVENTED = {"id": "ZX9041", "string": "123 Main St, Anytown, USA", "money": 4321.0, "percentage": 37.0,
            "integer": 7, "number": 7.5, "date": "2031-02-03", "boolean": True}


def _invented(agent: AgentConfig) -> str:
    """Intent null, with a value made up for every field a customer may give (the Qwen reading of 'do you
    sell gift cards?': order_id A1001, new_address '123 Main St, Anytown, USA')."""
    fields = [f for f in agent.profile_field_definitions if "message" in f.sources and not f.privileged]
    entities = {f.field_name: INVENTED.get(f.field_type, "ZX9041") for f in fields[:8] if not f.allowed_values}
    slots = [(s.id, slot.name) for s in agent.scenarios for step in s.steps for slot in step.slots][:8]
    commands = [{"name": "SetSlot", "flow": sid, "slot": name, "value": INVENTED["id"]} for sid, name in slots]
    return json.dumps({"detected_intent": None, "intent_confidence": 0.0, "extracted_entities": entities,
                       "commands": commands})


NOTHING_INVENTED = json.dumps({"detected_intent": None, "intent_confidence": 0.0, "extracted_entities": {},
                               "commands": []})


def _echo(agent: AgentConfig, message: str, n: int) -> str:
    scenario = agent.scenarios[0]
    block = {"context": {"active_flow": None, "asking_for_slots": [], "scenarios": [
        {"id": scenario.id, "examples": scenario.entry_examples[:2]}]}, "customer_message": message}
    text = json.dumps(block)
    return f'<data name="turn">\n{text}\n</data>' if n % 2 else text


def _fault(kind: str, agent: AgentConfig, message: str, n: int) -> Any:
    import litellm

    if kind == "null_intent":
        return json.dumps({"detected_intent": None, "intent_confidence": 0.0, "commands": [], "extracted_entities": {}})
    if kind == "invented_entities":
        return _invented(agent)
    if kind == "echo":
        return _echo(agent, message, n)
    if kind == "loop":
        return '{"detected_intent": null, "commands": [' + '{"name": "ChitChat", "topic": "greeting"}, ' * 120
    if kind == "invalid_json":
        return "Sure! Here is the reading: {detected_intent: " + (agent.scenarios[0].id if n % 2 else "none")
    if kind == "timeout":
        return litellm.Timeout(message="Request timed out", model="gpt-4o-mini", llm_provider="openai")
    return "litellm.InternalServerError"


def _generate_fault(kind: str) -> Any:
    import litellm

    if kind in GENERATE_FAULTS:
        return GENERATE_FAULTS[kind]
    if kind == "timeout":
        return litellm.Timeout(message="Request timed out", model="gpt-4o-mini", llm_provider="openai")
    return "litellm.InternalServerError"


def _reset_tools(agent: AgentConfig) -> None:
    if (Path(agent.base_dir or "") / "tools.py").exists() and "def reset_state" in (Path(agent.base_dir or "") / "tools.py").read_text():
        run_setup(Conversation(name="reset", turns=[], setup="tools.py:reset_state"), agent)


def _observed(result: Any) -> dict[str, Any]:
    return {
        "error": result.error,
        "execution_path": result.execution_path,
        "violations": sorted(v["rule_id"] for v in result.enforcement.get("violations", [])),
        "fallback_used": bool(result.enforcement.get("fallback_used")),
        "tool_calls": [(t["tool_id"], t.get("status"), json.dumps(t.get("arguments"), sort_keys=True, default=str))
                       for t in result.tool_calls],
        "blocked": sorted(t["tool_id"] for t in result.tool_calls if t.get("status") == "blocked"),
        "scenario": (result.scenario or {}).get("id"), "step": (result.scenario or {}).get("step_id"),
    }


def _run(agent: AgentConfig, conv: Conversation, n: int, deps: Any, faults: list[str] | None,
         consumed: Counter[str]) -> list[dict[str, Any]]:
    """One run of the conversation in its own session (the stores are shared, the sessions are not)."""
    model = deps.model
    _reset_tools(agent)
    run_setup(conv, agent)
    runner = LocalRunner(deps)
    out, at = [], 0
    for index, turn in enumerate(conv.turns, start=1):
        model.clear()
        kind = faults[at % len(faults)] if faults else None
        if kind:
            model.queues["sensor"] = [_fault(kind, agent, turn.user, index)]
            model.queues["generate"] = [_generate_fault(kind)]
        session = f"{'faulty' if faults else 'offline'}-{n}"
        result = runner.turn(TurnRequest(tenant_id=TENANT_ID, agent_id=agent.id, session_id=session,
                                         customer_id=conv.customer_id, turn_id=f"{session}-{index}", message=turn.user))
        if kind and not model.queues.get("generate"):  # the generation call was made, and failed
            consumed["generate:" + kind] += 1
            notes = deps.turns.list_for_session(TENANT_ID, agent.id, session)[-1].state["route"]["decision"]["notes"]
            assert any(GENERATED_NOTE in n for n in notes), (kind, turn.user, notes)
        if kind and not model.queues.get("sensor"):
            consumed[kind] += 1
            at += 1
            notes = deps.turns.list_for_session(TENANT_ID, agent.id, session)[-1].state["sensor"]["context"]["notes"]
            says = SAYS[kind] if kind != "invented_entities" or _invented(agent) != NOTHING_INVENTED else SAYS["null_intent"]
            assert any(says in n for n in notes), (kind, turn.user, notes)
        model.clear()
        out.append(_observed(result))
    return out


@pytest.fixture(scope="module")
def consumed() -> Counter[str]:
    return Counter()


@pytest.mark.parametrize("name", AGENTS)
def test_a_faulty_model_changes_no_verdict_and_no_tool_call(name: str, consumed: Counter[str]) -> None:
    agent_path = EXAMPLES / name / "agent.yaml"
    agent = load_agent(agent_path)
    conversations = load_suite(EXAMPLES / name / "tests.yaml", agent)
    deps = _fresh_deps(agent_path, None)  # one embedder, index and store for both runs of every conversation
    assert isinstance(deps.model, ScriptedLiteLLM)
    deps.model.sleep = lambda s: None  # a retried provider error waits for nothing here
    mine: Counter[str] = Counter()
    try:
        for n, conv in enumerate(conversations):
            faults = list(FAULTS[n % len(FAULTS):] + FAULTS[:n % len(FAULTS)])  # each conversation starts elsewhere
            offline = _run(agent, conv, n, deps, None, Counter())
            faulty = _run(agent, conv, n, deps, faults, mine)
            for index, (want, got) in enumerate(zip(offline, faulty, strict=True), start=1):
                assert got["error"] is None, (conv.name, index, got["error"])
                assert got == want, f"{name} / {conv.name} / turn {index}: {conv.turns[index - 1].user!r}"
    finally:
        _reset_tools(agent)  # the example's tools hold their data in the process: leave it as other tests expect
    consumed.update(mine)  # (the pizza suite's turns are all read on the fast path: no sensor call to break)


def test_every_fault_was_served(consumed: Counter[str]) -> None:
    """Runs after the agents' tests (same module, in order): each fault reached the sensor several times."""
    if not consumed:
        pytest.skip("run with the per-agent tests")
    assert all(consumed[kind] >= 3 for kind in FAULTS), consumed
    assert all(consumed["generate:" + kind] >= 2 for kind in FAULTS), consumed
