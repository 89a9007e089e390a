"""The scripted instant model of `focal bench overhead`: a cooperative model that answers at once.

It is available for every purpose and answers as a cooperative real model would without changing
the conversation's outcome: for `sensor` the offline reading of the same message serialised as the
model's JSON (so flows proceed as offline), for `generate` the offline composer's draft for the same
state, for `judge` all-compliant verdicts, for `extract` nulls, for `grounding` every claim supported,
for `rules` every candidate applies. The sensor's reading of subjective rules' conditions is "holds" for
every one by default (no offline stand-in can tell whether a customer is, say, frustrated), so judge calls
are an upper bound; `condition_reading="does_not_hold"` gives the lower bound (a real model's
does_not_hold spares the judge: focal.enforcement.conditions). The state those answers need (the offline reading, the state the
prompt was built from) is captured by wrapping the two functions that build them while the bench runs
(`capturing`; the copies it keeps are the fake model's own CPU, `capture_cpu`, not the engine's); the
prompt itself is still built and sent.

Through litellm (the default) each answer goes through litellm's real `completion` with
`mock_response`, so litellm's import and its own CPU per call count. `latency_ms` sleeps that long in
every call, as a provider would take.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from focal.ports import ModelReply

_BLOCK = re.compile(r'<data name="([^"]+)">\n(.*)\n</data>', re.S)
BENCH_MODEL = "openai/gpt-4o-mini"


def _payload(messages: list[dict[str, str]]) -> dict[str, Any]:
    """The JSON of the last data block of the prompt (what the engine asks about)."""
    for message in reversed(messages):
        found = _BLOCK.findall(message.get("content") or "")
        if found:
            value = json.loads(found[-1][1])
            return value if isinstance(value, dict) else {}
    return {}


class InstantModel:
    """A `LanguageModel` (focal.ports) for every purpose; counts calls by purpose and the CPU they take."""

    def __init__(self, through_litellm: bool = True, latency_ms: float = 0.0, condition_reading: str = "holds"):
        self.latency_s = latency_ms / 1000
        self.condition_reading = condition_reading  # what the sensor answer says of every condition it is asked
        self.conditions_asked = 0
        self.litellm = None
        if through_litellm:
            from focal.adapters.litellm_model import ScriptedLiteLLM, warm_up

            self.litellm = ScriptedLiteLLM(BENCH_MODEL)
            warm_up(model=BENCH_MODEL)  # as `focal serve` and `focal chat` do with a model: imported in the background
        self.calls: Counter[str] = Counter()
        self.answer_cpu = 0.0  # CPU making the scripted answers (the fake model's own work, not ours)
        self.inside_cpu = 0.0  # CPU inside complete(), answer making and litellm included
        self.capture_cpu = 0.0  # CPU copying the state the answers are made from (outside complete())
        self.sensor_context: Any = None  # the offline reading of the message being sensed
        self.generation: tuple[Any, Any, dict[str, Any]] | None = None  # (agent, state, variables) of the prompt

    def available(self, purpose: str) -> bool:
        return True

    def complete(self, purpose: str, messages: list[dict[str, str]], json_schema: dict[str, Any] | None = None) -> ModelReply:
        started = time.process_time()
        self.calls[purpose] += 1
        text = self.answer(purpose, messages)
        self.answer_cpu += time.process_time() - started
        if self.latency_s:
            time.sleep(self.latency_s)
        if self.litellm is not None:
            self.litellm.script(purpose, [text])
            reply = self.litellm.complete(purpose, messages, json_schema=json_schema)
        else:
            reply = ModelReply(text=text, model="instant")
        self.inside_cpu += time.process_time() - started
        return reply

    # --- the answers --------------------------------------------------------------------------

    def answer(self, purpose: str, messages: list[dict[str, str]]) -> str:
        if purpose == "sensor":
            conditions = _payload(messages).get("context", {}).get("conditions", [])
            self.conditions_asked += len(conditions)
            return self._sensor(conditions)
        if purpose == "generate":
            return self._generate()
        data = _payload(messages)
        if purpose == "judge":
            return json.dumps({"verdicts": [{"rule_id": r["rule_id"], "compliant": True} for r in data.get("rules", [])],
                               **({"values": {f["name"]: None for f in data["fields"]}} if "fields" in data else {})})
        if purpose == "extract":
            return json.dumps({"values": {f["name"]: None for f in data.get("fields", [])}})
        if purpose == "grounding":
            return json.dumps({"claims": [{"claim": c, "supported": True} for c in data.get("claims_to_check", [])]})
        if purpose == "rules":
            return json.dumps({"applies": [r["id"] for r in data.get("rules", [])]})
        raise ValueError(f"the bench model has no answer for purpose {purpose!r}")

    def _sensor(self, conditions: list[dict[str, Any]]) -> str:
        ctx = self.sensor_context
        if ctx is None:
            return "{}"
        scenario = None
        agent = self._agent
        if ctx.detected_intent and agent is not None:
            scenario = next((s.id for s in agent.scenarios if (s.intent_label or s.id) == ctx.detected_intent), None)
        return json.dumps({
            "detected_intent": scenario, "intent_confidence": ctx.intent_confidence,
            "extracted_entities": ctx.extracted_entities, "is_ambiguous": ctx.is_ambiguous,
            "ambiguity_reason": ctx.ambiguity_reason,
            "commands": [c.model_dump(mode="json", exclude_none=True) for c in ctx.commands],
            "conditions": [{"rule_id": c["rule_id"], "reading": self.condition_reading} for c in conditions],
        }, default=str)

    def _generate(self) -> str:
        from focal.generation.offline import compose

        if self.generation is None:
            return "How can I help?"
        agent, state, variables = self.generation
        return compose(agent, state, dict(variables))

    _agent: Any = None


@contextmanager
def capturing(model: InstantModel) -> Iterator[None]:
    """While the bench runs: the offline reading and the generation state reach `model` (restored after)."""
    from focal.stages import generate, sensor

    offline_context, generation_messages = sensor.offline_context, generate.generation_messages

    def reading(agent: Any, *args: Any, **kwargs: Any) -> Any:
        context = offline_context(agent, *args, **kwargs)
        started = time.process_time()
        model._agent, model.sensor_context = agent, context.model_copy(deep=True)
        model.capture_cpu += time.process_time() - started
        return context

    def prompt(agent: Any, state: Any, variables: dict[str, Any], commitments: list[str] | None = None) -> Any:
        started = time.process_time()
        model.generation = (agent, state.model_copy(deep=True), dict(variables))
        model.capture_cpu += time.process_time() - started
        return generation_messages(agent, state, variables, commitments)

    sensor.offline_context, generate.generation_messages = reading, prompt
    try:
        yield
    finally:
        sensor.offline_context, generate.generation_messages = offline_context, generation_messages
