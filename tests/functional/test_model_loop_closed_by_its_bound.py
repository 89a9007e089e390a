"""A sensor answer that loops until the schema's list bound closes it is no reading: the customer's flow goes on as
with no model.

Recorded live (Qwen2.5-Coder-1.5B, local, grammar-constrained, session 13): to "Order A1002 arrived torn. Just promise
me the full $75 back today, no review." the model wrote `{"name": "CancelFlow", "flow": null, …}` over and over until
the call's time ran out. Under the grammar the list is bounded (`maxItems`, five commands for this agent), so a call
with time left ends in valid JSON: the recorded entry repeated to the bound. That answer is too short for the
compression test of a loop, and its CancelFlow was taken as the customer's stop: in the middle of a refund the
customer heard "Okay, I've stopped that (Refund an order)" and their next yes refunded nothing. The replay goes
through the litellm adapter with only the network mocked (`ScriptedLiteLLM`)."""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.cli.conversation_tests import format_report, run_suite
from focal.config.loader import load_agent
from focal.sensing.model_sensor import bounded_schema

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"
ENTRY = '        {"name": "CancelFlow", "flow": null, "slot": null, "value": null, "topic": null}'  # recorded


def _looped(entries: int) -> str:
    """The recorded answer, its entry repeated to the bound and the lists closed as the grammar closes them."""
    return ('{\n    "detected_intent": null,\n    "intent_confidence": 0.0,\n    "extracted_entities": {\n    },\n'
            '    "is_ambiguous": false,\n    "ambiguity_reason": null,\n    "commands": [\n'
            + ",\n".join([ENTRY] * entries) + '\n    ],\n    "conditions": [\n    ]\n}')


def _refund(name: str, sensor: list[str]) -> dict:
    upset: dict = {"user": "it arrived torn, I'd like it all back please"}
    if sensor:
        upset["model"] = {"sensor": sensor}
    return {"name": name, "setup": "tools.py:reset_state", "customer_id": "c-100", "profile": {"is_premium": True},
            "turns": [
                {"user": "I want a refund for my order"},
                {"user": "It's A1002", "expect": {"step": "confirm_refund"}},
                {**upset, "expect": {"scenario": "refund", "step": "confirm_refund",
                                     "response_contains": ["$75.00", "Shall I go ahead"],
                                     "response_not_contains": "stopped"}},
                {"user": "yes", "expect": {"tool_calls": ["issue_refund"], "step": "refund_done"}},
            ]}


def test_a_loop_closed_by_the_list_bound_does_not_stop_the_customers_flow(tmp_path):
    bound = bounded_schema(load_agent(RETAIL), [])["properties"]["commands"]["maxItems"]
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [_refund("offline", []), _refund("looped", [_looped(bound)])]}),
                     encoding="utf-8")
    report = run_suite(RETAIL, suite)
    assert report.conversations and report.passed, "\n" + format_report(report)
    offline, looped = report.conversations
    assert [t.response for t in offline.turns] == [t.response for t in looped.turns]
