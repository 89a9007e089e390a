"""A session saved as a test from its stored (masked) records: a masked value is gone, never an expectation.

Turn records keep a card number as ``**** **** **** 4242`` and a `pii: true` field as ``[redacted:<field>]``
(focal.pii). A saved test that expected those as a tool's arguments, put them in the profile or pinned an answer
on them would fail on every honest re-run (the live turn has the clear value) — or, worse, teach the reader that
the mask is the value. The test agent is tests/security/pii_agent/agent.yaml.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.config.loader import load_agent
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.web.saved_test import suite_text
from focal.wiring import local_deps

BILLING = Path(__file__).resolve().parent / "pii_agent" / "agent.yaml"


def _saved(tmp_path: Path, session: str, *messages: str) -> tuple[str, list[dict]]:
    deps = local_deps(BILLING, tmp_path / "focal.db")
    runner = LocalRunner(deps)
    for n, message in enumerate(messages):
        runner.turn(TurnRequest(tenant_id="acme", agent_id="billing", session_id=session, customer_id="cust-1",
                                turn_id=f"{session}-t{n}", message=message))
    records = deps.turns.list_for_session("acme", "billing", session)
    text = suite_text(load_agent(BILLING), records, session)
    [conversation] = yaml.safe_load(text)["conversations"]
    return text, conversation["turns"]


def _values(node):
    if isinstance(node, dict):
        for value in node.values():
            yield from _values(value)
    elif isinstance(node, list):
        for value in node:
            yield from _values(value)
    else:
        yield node


def test_a_masked_card_is_neither_an_expected_argument_nor_a_pinned_answer(tmp_path):
    text, turns = _saved(tmp_path, "card", "I want to pay my invoice", "my card is 4242 4242 4242 4242")
    paid = turns[1]["expect"]
    assert paid["tool_calls"] == ["check_card"]  # the call is expected; its masked argument is not
    expected = [str(v) for t in turns for v in _values(t["expect"])]
    assert not [v for v in expected if "****" in v or "[redacted" in v], expected
    assert "Turn(s) 2: the message was stored masked" in text  # the reader is told to put a test value back


def test_a_masked_pii_slot_is_no_expectation_of_a_later_turn(tmp_path):
    text, turns = _saved(tmp_path, "phone", "Please call me back", "+1 (555) 867-5309", "tomorrow at 10am")
    expected = [str(v) for t in turns for v in _values(t["expect"])]
    assert not [v for v in expected if "[redacted" in v or "867-5309" in v], expected
    assert "Turn(s) 2: the message was stored masked" in text
