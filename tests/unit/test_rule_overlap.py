"""Rules the agent wrote as overlapping (focal.retrieval.rule_overlap): when every example of the best rule meets
another rule about as well as its own keys do — a rule and its special case — that rule is not held to the margin
below the best one; it still passes its own threshold."""

from __future__ import annotations

import pytest

from focal.adapters.numpy_index import NumpyRuleIndex
from focal.config.loader import load_agent
from focal.dialogue.rule_filter import below
from focal.models.agent import AgentConfig, Rule
from focal.models.session import Session
from focal.models.turn import ScoredRule
from focal.retrieval.calibration import centred
from focal.retrieval.message_parts import search_message
from focal.retrieval.rule_overlap import OVERLAP, overlapping_rules, rule_overlaps
from focal.retrieval.rules import sync_index, turn_scope


@pytest.fixture(scope="module")
def minilm():
    from focal.adapters.onnx_embedder import shared_embedder

    return shared_embedder()


def test_the_shipped_airline_agent_writes_its_insurance_rules_as_a_rule_and_its_special_case(minilm):
    airline = load_agent("examples/airline/agent.yaml")
    pairs = overlapping_rules(airline, minilm)
    # asking to add insurance to a booking is asking about insurance; asking about insurance is not asking to add it
    assert ("no_insurance_after_booking", "insurance_info") in pairs
    assert ("insurance_info", "no_insurance_after_booking") not in pairs
    assert rule_overlaps(airline, minilm) is rule_overlaps(airline, minilm)  # once per config object


def test_rules_that_only_sound_alike_do_not_overlap(minilm):
    retail = load_agent("examples/retail/agent.yaml")  # refund limit, refund timing, refund destination: close, distinct
    assert not any(a.startswith("refund") and b.startswith("refund") for a, b in overlapping_rules(retail, minilm))
    no_examples = AgentConfig(id="x", name="X", rules=[
        Rule(id="a", condition_text="The customer asks about travel insurance", action_text="Explain it."),
        Rule(id="b", condition_text="The customer asks to add travel insurance", action_text="Not after booking.")])
    assert overlapping_rules(no_examples, minilm) == frozenset()  # only a rule's own examples say it


def test_a_message_meeting_the_special_case_matches_the_general_rule_too(minilm):
    airline = load_agent("examples/airline/agent.yaml")
    index, message = NumpyRuleIndex(), "I'd like insurance added to my existing reservation"
    sync_index(index, minilm, "t", airline)
    scope = turn_scope("t", airline, Session(tenant_id="t", agent_id=airline.id, session_id="s", customer_id="c"), [])
    hits = search_message(airline, index, minilm, scope, message, centred(minilm, minilm.embed([message])[0]))
    candidates = [ScoredRule(rule_id=h.rule_id, score=h.score, scope="GLOBAL", reason=h.reason, flow_id=h.flow_id,
                             flow_score=h.flow_score, best_score=h.best_score, nearest_other=h.nearest_other,
                             overlaps_best=h.overlaps_best) for h in hits]
    found = {c.rule_id: c for c in candidates}
    assert max(candidates, key=lambda c: c.score).rule_id == "no_insurance_after_booking"
    general = found["insurance_info"]
    assert general.overlaps_best and below(airline, candidates, general) is None
    held = general.model_copy(update={"overlaps_best": False})
    assert "below the best rule" in (below(airline, candidates, held) or "")  # the margin alone would cut it


def test_an_overlapping_rule_still_needs_its_own_threshold():
    agent = AgentConfig(id="x", name="X", rules=[Rule(id="a", condition_text="A", action_text="a."),
                                                 Rule(id="b", condition_text="B", action_text="b.")])
    best = ScoredRule(rule_id="a", score=1.2, scope="GLOBAL", best_score=1.2)
    weak = ScoredRule(rule_id="b", score=agent.retrieval.rule_match_threshold - 0.01, scope="GLOBAL", best_score=1.2,
                      overlaps_best=True)
    assert below(agent, [best, weak], weak) == ""
    assert 0.5 < OVERLAP < 1.0


def test_an_agent_above_the_key_limit_has_no_overlaps(minilm, monkeypatch):
    from focal.retrieval import rule_overlap

    airline = load_agent("examples/airline/agent.yaml")
    monkeypatch.setattr(rule_overlap, "MAX_KEYS", 10)
    assert overlapping_rules(airline, minilm) == frozenset()
