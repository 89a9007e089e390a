"""The sensor prompt stays small on every example agent at realistic turns: each example's conversations are
replayed, and every prompt the sensor model would have been sent is measured (tokens ≈ characters / 4)
against `TOKEN_BUDGET` (600). The airline agent has nine scenarios and 87 fields: the prompt carries only
the five scenarios the offline reading placed nearest, and the fields of the active flow and the two likeliest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from focal.cli.conversation_tests import TENANT_ID, Conversation, Turn, _fresh_deps, load_suite, run_setup
from focal.config.loader import load_agent
from focal.enforcement.conditions import sensor_rules
from focal.models.session import Session
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.ports import ModelReply
from focal.sensing import sensor_prompt as sp
from focal.stages import sensor as sensor_stage

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
AGENTS = sorted(p.parent.name for p in EXAMPLES.glob("*/agent.yaml") if p.parent.name != "broken")


class SensorOnly:
    """A model for the sensor only; the stage's call is intercepted before it (see `recording`)."""
    spends_no_time = True  # scripted: read the same on a loaded machine (focal.turn.budget)

    def available(self, purpose: str) -> bool:
        return purpose == "sensor"

    def complete(self, purpose: str, messages: Any, json_schema: Any = None) -> ModelReply:
        raise AssertionError("the sensor call is intercepted")


def _conversations(name: str, agent: Any) -> list[Conversation]:
    suite = EXAMPLES / name / "tests.yaml"
    if suite.exists():
        return load_suite(suite, agent)
    # no suite: each scenario's openings, then a question the offline reading cannot place
    turns = [Turn(user=e) for s in agent.scenarios for e in s.entry_examples[:2]] + [Turn(user="what do you mean?")]
    return [Conversation(name="openings", turns=turns)]


def _step_states(agent: Any) -> list[tuple[str, Session]]:
    out = []
    for scenario in agent.scenarios:
        text = max(scenario.entry_examples or ["I need help with this"], key=len)
        for step in scenario.steps:
            session = Session(tenant_id=TENANT_ID, agent_id=agent.id, session_id="x", customer_id="c",
                              active_scenario_id=scenario.id, active_step_id=step.id)
            session.remember("user", "so here is the whole story about my request " * 12)
            session.remember("assistant", "Thanks, I have noted all of that. " * 12 + "Which one do you mean?")
            out.append((text, session))
    return out


@pytest.fixture
def recording(monkeypatch):
    prompts: list[tuple[str, list[dict[str, str]]]] = []

    def model_sensor(model, agent, session, text, calls, rules=None, context=None):
        prompts.append((text, sp.sensor_prompt(agent, session, text, rules or [], context)))
        return None, "intercepted"

    monkeypatch.setattr(sensor_stage, "model_sensor", model_sensor)
    return prompts


@pytest.mark.parametrize("name", AGENTS)
def test_every_sensor_prompt_fits_the_budget(name: str, recording) -> None:
    agent_path = EXAMPLES / name / "agent.yaml"
    agent = load_agent(agent_path)
    deps = _fresh_deps(agent_path, None)
    deps.model = SensorOnly()
    runner = LocalRunner(deps)
    for n, conv in enumerate(_conversations(name, agent)):
        run_setup(conv, agent)
        for index, turn in enumerate(conv.turns, start=1):
            runner.turn(TurnRequest(tenant_id=TENANT_ID, agent_id=agent.id, session_id=f"size-{n}",
                                    customer_id=conv.customer_id, turn_id=f"size-{n}-{index}", message=turn.user))
    # every step of every scenario, as the flow stands when it is entered, after two long earlier turns
    recording += [(text, sp.sensor_prompt(agent, session, text, sensor_rules(agent, session), None))
                  for text, session in _step_states(agent)]
    sizes = sorted((sp.prompt_tokens(messages), text) for text, messages in recording)
    biggest = sizes[-1]
    print(f"{name}: {len(sizes)} prompts, median {sizes[len(sizes) // 2][0]}, largest {biggest[0]} tokens")
    assert biggest[0] <= sp.TOKEN_BUDGET, f"{name}: {biggest[0]} tokens for {biggest[1]!r}"
    for _, messages in recording:
        assert messages[0]["role"] == "system" and "<data name=" not in messages[0]["content"]  # the fixed part first
        assert len({m["content"] for m in messages if m["role"] == "system"}) == 1
