"""The sensor's answer schema bounds its lists by what the agent can be told (focal.sensing.model_sensor.bounded_schema).

Recorded live (Qwen2.5-Coder-1.5B under a grammar, retail, "I'd like a refund for my rain jacket, order A1002"):
the model looped on an empty SetSlot command to the 512-token limit — 414 tokens, 455 s on a loaded two-core
machine, then no reading. A bound lets the grammar close the list; it must never cut a reading a suite scripts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from focal.config.loader import load_agent
from focal.models.session import Session
from focal.ports import ModelReply
from focal.sensing.model_sensor import bounded_schema, model_sensor

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
AGENTS = sorted(p.parent for p in EXAMPLES.glob("*/agent.yaml") if (p.parent / "tests.yaml").exists())
LOOP = ('{\n    "detected_intent": null,\n    "intent_confidence": 0.0,\n    "extracted_entities": {\n    },\n'
        '    "is_ambiguous": false,\n    "ambiguity_reason": null,\n    "commands": [\n'
        + ',\n'.join(['        {"name": "SetSlot", "flow": null, "slot": null, "value": null, "topic": null}'] * 13))


class RecordedProvider:
    """The provider boundary: replays the recorded answer and keeps the schema it was sent."""

    spends_no_time = True

    def __init__(self, answer: str, output_tokens: int) -> None:
        self.answer, self.output_tokens, self.schemas = answer, output_tokens, []

    def available(self, purpose: str) -> bool:
        return purpose == "sensor"

    def complete(self, purpose: str, messages: list[dict[str, str]], json_schema: dict[str, Any] | None = None,
                 max_tokens: int | None = None) -> ModelReply:
        self.schemas.append(json_schema)
        return ModelReply(text=self.answer, model="local", output_tokens=self.output_tokens)


def _scripted_commands(suite: Path) -> list[int]:
    counts = []
    for conv in (yaml.safe_load(suite.read_text()) or {}).get("conversations", []):
        for turn in conv.get("turns", []):
            sensor = (turn.get("model") or {}).get("sensor")
            for out in sensor if isinstance(sensor, list) else [sensor]:
                if isinstance(out, dict):
                    counts.append(len(out.get("commands") or []))
    return counts


def test_the_retail_sensor_is_sent_a_bounded_schema_and_the_recorded_loop_stays_no_reading():
    agent = load_agent(EXAMPLES / "retail" / "agent.yaml")
    provider = RecordedProvider(LOOP, 414)
    output, note = model_sensor(provider, agent, Session(tenant_id="t", agent_id=agent.id, session_id="s", customer_id="c-100"),
                                "I'd like a refund for my rain jacket, order A1002", [])
    assert output is None and "offline reading kept" in note, note
    (schema,) = provider.schemas  # a loop is never retried
    # change_address collects two slots, the largest flow: two commands for them and three more
    assert schema["properties"]["commands"]["maxItems"] == 5
    assert schema["properties"]["conditions"]["maxItems"] == 0  # retail's sensor reads no condition


@pytest.mark.parametrize("folder", AGENTS, ids=lambda p: p.name)
def test_the_bound_never_cuts_a_reading_the_suites_script(folder: Path):
    agent = load_agent(folder / "agent.yaml")
    bound = bounded_schema(agent, [])["properties"]["commands"]["maxItems"]
    scripted = [n for suite in folder.glob("tests*.yaml") for n in _scripted_commands(suite)]
    assert all(n <= bound for n in scripted), (bound, max(scripted))
