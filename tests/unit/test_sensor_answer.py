"""A sensor model's answer that echoes the prompt, loops or is no JSON is no reading (focal.sensing.sensor_answer,
focal.sensing.model_sensor): an echo or a loop is never retried, an invalid answer gets one repair no longer
than the first prompt (never the rejected answer), and the call asks for at most MAX_TOKENS when the model
takes a limit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from focal.adapters.litellm_model import ScriptedLiteLLM
from focal.config.loader import load_agent
from focal.errors import ModelError
from focal.models.session import Session
from focal.ports import ModelReply
from focal.sensing import sensor_prompt as sp
from focal.sensing.model_sensor import MAX_TOKENS, model_sensor
from focal.sensing.sensor_answer import echo_reason, loop_reason, repeated_entry

AGENT = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"
VALID = json.dumps({"detected_intent": "refund", "intent_confidence": 0.9, "commands": []})


@pytest.fixture(scope="module")
def agent():
    return load_agent(AGENT)


def fresh(agent) -> Session:
    s = Session(tenant_id="t", agent_id=agent.id, session_id="s", customer_id="c")
    s.remember("assistant", "Which order is it? Give me its number, like A1001.")
    return s


class Limited:
    """A model whose complete() takes a limit, like the litellm adapter; answers from a script."""

    def __init__(self, *answers: str | Exception, output_tokens: int = 20):
        self.answers, self.output_tokens = list(answers), output_tokens
        self.calls: list[tuple[list[dict[str, str]], int | None]] = []

    def available(self, purpose: str) -> bool:
        return bool(self.answers)

    def complete(self, purpose, messages, json_schema=None, max_tokens=None) -> ModelReply:
        self.calls.append((messages, max_tokens))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return ModelReply(text=answer, model="fake", output_tokens=self.output_tokens)


class Unlimited(Limited):
    def complete(self, purpose, messages, json_schema=None) -> ModelReply:  # type: ignore[override]
        return super().complete(purpose, messages, json_schema)


def run(agent, model, text="the thing I bought last week, what gives?"):
    calls: list = []
    output, note = model_sensor(model, agent, fresh(agent), text, calls)
    return output, note, calls


def test_a_valid_answer_is_read_and_the_limit_asked_for(agent):
    model = Limited(VALID)
    output, note, calls = run(agent, model)
    assert output is not None and output.detected_intent == "refund" and note == "model sensor"
    assert model.calls[0][1] == MAX_TOKENS


def test_a_model_without_a_limit_is_called_as_before(agent):
    output, _, _ = run(agent, Unlimited(VALID))
    assert output is not None


@pytest.mark.parametrize("echo", [
    '<data name="turn">\n{"context": {}}\n</data>',
    json.dumps({"context": {"active_flow": None, "scenarios": []}, "customer_message": "hi"}),
    json.dumps({"detected_intent": None, "commands": [], "asking_for_slots": ["order_id"]}),
    "\\u003cdata name=\\\"turn\\\"\\u003e",
])
def test_an_echo_is_no_reading_and_is_not_retried(agent, echo):
    model = Limited(echo, VALID)
    output, note, calls = run(agent, model)
    assert output is None and len(model.calls) == 1 and "not retried" in note
    assert calls[0].ok is False and calls[0].note.startswith("no reading: it ")


def test_instructions_or_earlier_turns_repeated_verbatim_are_an_echo(agent):
    messages = sp.sensor_prompt(agent, fresh(agent), "hello", [], None)
    system = messages[0]["content"]
    assert echo_reason(json.dumps({"ambiguity_reason": system[:120]}), messages, "hello")
    earlier = "Which order is it? Give me its number, like A1001, or the e-mail you ordered with."
    s = fresh(agent)
    s.remember("assistant", earlier)
    messages = sp.sensor_prompt(agent, s, "hello", [], None)
    assert echo_reason(json.dumps({"ambiguity_reason": "you said: " + earlier}), messages, "hello")


def test_quoting_the_customers_own_message_is_no_echo(agent):
    message = "please change my delivery address to 12 Long Lane, Springfield, apartment 4B, back door"
    messages = sp.sensor_prompt(agent, fresh(agent), message, [], None)
    answer = json.dumps({"detected_intent": "change_address", "commands": [
        {"name": "SetSlot", "slot": "new_address", "value": message}]})
    assert echo_reason(answer, messages, message) is None


def test_a_loop_to_the_limit_is_no_reading_and_is_not_retried(agent):
    looping = '{"commands": [' + '{"name": "ChitChat"}, ' * 80
    assert loop_reason(looping, 10, None) == "it repeats itself"
    assert loop_reason(VALID, MAX_TOKENS, MAX_TOKENS) and loop_reason(VALID, 20, MAX_TOKENS) is None
    model = Limited(looping, VALID)
    output, note, _ = run(agent, model)
    assert output is None and len(model.calls) == 1 and "repeats itself" in note
    at_limit = Limited(VALID, VALID, output_tokens=MAX_TOKENS)
    output, note, _ = run(agent, at_limit)
    assert output is None and len(at_limit.calls) == 1 and "token limit" in note


def test_an_invalid_answer_gets_one_repair_no_longer_than_the_first_prompt(agent):
    bad = "Sure! {detected_intent: refund"
    model = Limited(bad, VALID)
    output, note, _ = run(agent, model)
    assert output is not None and note == "model sensor after one repair"
    first, repair = model.calls[0][0], model.calls[1][0]
    assert sp.prompt_tokens(repair) <= sp.prompt_tokens(first)
    assert all(bad not in m["content"] for m in repair) and "invalid" in repair[-1]["content"]
    twice = Limited(bad, bad, VALID)
    output, note, _ = run(agent, twice)
    assert output is None and len(twice.calls) == 2 and "invalid after one repair" in note


def test_a_provider_error_or_timeout_is_no_reading(agent):
    for error in (ModelError("Timeout from model provider"), ModelError("InternalServerError from model provider")):
        model = Limited(error, VALID)
        output, note, calls = run(agent, model)
        assert output is None and len(model.calls) == 1 and note.startswith("sensor model failed")


def test_the_litellm_adapter_takes_a_limit_through_a_real_completion(agent):
    model = ScriptedLiteLLM()
    model.script("sensor", [VALID])
    output, note, calls = run(agent, model)
    assert output is not None and calls[0].ok and note == "model sensor"


def test_an_answer_repeating_a_command_or_condition_word_for_word_is_a_loop():
    stop = {"name": "CancelFlow", "flow": None, "slot": None, "value": None, "topic": None}
    assert "commands" in (repeated_entry({"commands": [stop, stop]}) or "")
    held = {"rule_id": "r1", "reading": "holds"}
    assert "conditions" in (repeated_entry({"commands": [stop], "conditions": [held, dict(held)]}) or "")


def test_distinct_commands_are_no_loop():
    assert repeated_entry({"commands": [{"name": "SetSlot", "slot": "order_id", "value": "A1001"},
                                        {"name": "SetSlot", "slot": "order_id", "value": "A1002"}],
                           "conditions": [{"rule_id": "r1", "reading": "holds"}]}) is None
    assert repeated_entry({"commands": None}) is None


def test_a_repeated_command_keeps_the_offline_reading_and_is_not_retried(agent):
    stop = {"name": "CancelFlow", "flow": None, "slot": None, "value": None, "topic": None}
    model = Limited(json.dumps({"detected_intent": None, "intent_confidence": 0.0, "commands": [stop] * 3}), VALID)
    output, note, _ = run(agent, model, "it arrived torn")
    assert output is None and "repeats an entry of commands" in note and "not retried" in note
    assert len(model.calls) == 1, "a loop is never sent back for repair"
