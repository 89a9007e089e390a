"""A model's draft nobody could check (the reader or the judge gave nothing usable, and the offline reader saw nothing
that breaks a rule), on rules the customer's message did not raise, is kept out; when no model redraft follows, the
customer gets the turn's own offline answer, checked like any draft, never the texts of rules the draft was not
shown to break. Before, such a draft counted as breaking its rules: the redraft said their texts, so a customer who
asked how long shipping takes heard "Refunds above $50 need a review by our team…", worse than with no model at all.

The drafts are scripted at the provider boundary (litellm's `mock_response`) with no second draft, as when the
model's redraft times out; the reader and the judge answer as a small local model did: nothing usable.
"""

from __future__ import annotations

import json
from pathlib import Path

from focal.cli.conversation_tests import TENANT_ID, Conversation, _fresh_deps, start_conversation
from focal.config.loader import load_agent
from focal.models.turn import TurnRequest

ROOT = Path(__file__).resolve().parents[2]
RETAIL = ROOT / "examples" / "retail" / "agent.yaml"
CARDS = ROOT / "examples" / "cards" / "agent.yaml"

# The total is not read ("twice"), so refund_cap needs a model to read the draft; the reader's answer is unusable.
TWICE = json.dumps({"text": "Standard shipping takes 3-5 business days; if it is late we will refund $20 twice.",
                    "commitments": {}})
# Recorded live (Qwen2.5-Coder-1.5B, session 13, cards in German): the judge gave no verdict on it.
RECORDED_DE = ('{"text": "Wenn du die Buchung reklamiere, wird das Geld zurückbekommen, wenn die Northbank-App die '
               'Reklamation verarbeitet und die Karte nicht mehr abgelehnt wird.", "commitments": {}}')


def _say(agent_path: Path, name: str, message: str, customer: str, profile: dict, model: dict[str, list[str]]):
    """One turn of a fresh conversation, each purpose's answers scripted at the provider boundary (none: offline)."""
    agent = load_agent(agent_path)
    deps = _fresh_deps(agent_path, None)
    conv = Conversation(name=name, turns=[], customer_id=customer, profile=profile, setup="tools.py:reset_state")
    runner = start_conversation(conv, agent, deps)
    for purpose, outputs in model.items():
        deps.model.script(purpose, outputs)
    result = runner.turn(TurnRequest(tenant_id=TENANT_ID, agent_id=agent.id, session_id=name, customer_id=customer,
                                     turn_id=f"{name}-1", message=message))
    assert not deps.model.queues.get("generate"), "the scripted draft was not used"
    return result


def test_a_draft_whose_amount_nobody_could_read_gives_the_offline_answer():
    message = "how long does shipping take?"
    offline = _say(RETAIL, "offline-twice", message, "c-100", {}, {})
    model = _say(RETAIL, "model-twice", message, "c-100", {}, {"generate": [TWICE], "extract": ["I think it is fine."]})
    first = model.enforcement["violations"][0]
    assert first["rule_id"] == "refund_cap" and first["reason"].startswith("cannot verify")
    assert model.response == offline.response and "3-5 business days" in model.response
    assert "$50" not in model.response and "twice" not in model.response
    assert model.enforcement["own_words"] is True and model.enforcement["fallback_used"] is False
    assert model.execution_path == offline.execution_path == "respond"


def test_two_drafts_nobody_could_read_give_the_offline_answer_not_an_unraised_rules_text():
    """Seen live (Qwen2.5-Coder-0.5B, the hotel desk in Spanish): both of the model's drafts were unreadable for a
    rule about room upgrades, and a guest who asked for a voucher heard "No puedo prometer una mejora de habitación"."""
    message = "how long does shipping take?"
    offline = _say(RETAIL, "offline-twice-2", message, "c-100", {}, {})
    model = _say(RETAIL, "model-twice-2", message, "c-100", {},
                 {"generate": [TWICE, TWICE], "extract": ["I think it is fine.", "Fine."]})
    assert [v["rule_id"] for v in model.enforcement["violations"] if v["lane"] == "deterministic"] == ["refund_cap"] * 2
    assert model.response == offline.response and "$50" not in model.response
    assert model.enforcement["fallback_used"] is False


def test_a_recorded_german_draft_the_judge_gave_no_verdict_on_gives_the_offline_answer():
    message, verified = "Werde ich das Geld zurückbekommen, wenn ich die Buchung reklamiere?", {"is_verified": True}
    offline = _say(CARDS, "offline-de", message, "c-verified", verified, {})
    model = _say(CARDS, "model-de", message, "c-verified", verified,
                 {"generate": [RECORDED_DE], "judge": ['{"verdicts": []}']})
    assert [v["reason"][:13] for v in model.enforcement["violations"]] == ["cannot verify"]
    assert model.response == offline.response and "zurückbekommen" not in model.response
    assert model.enforcement["own_words"] is True

