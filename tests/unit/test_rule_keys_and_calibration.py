"""Rule matching: each rule's keys (its condition — not an action guard's —, its condition with its action, and its
examples) are indexed with
vectors centred on the model's background mean; a search folds the keys back into rules, best key first, and
names the flow whose entry example competes with each rule."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from focal.adapters.numpy_index import NumpyRuleIndex
from focal.models.agent import AgentConfig, Rule, Scenario, Step
from focal.models.session import Session
from focal.retrieval.calibration import calibration_id, centred
from focal.retrieval.matching import search_rules
from focal.retrieval.rules import agent_documents, sync_index, turn_scope


@pytest.fixture(scope="module")
def minilm():
    from focal.adapters.onnx_embedder import shared_embedder

    return shared_embedder()


def agent() -> AgentConfig:
    return AgentConfig(
        id="shop", name="Shop",
        scenarios=[Scenario(id="dispute", name="Dispute a charge", entry_examples=["I want to dispute a charge"],
                            entry_step_id="ask", steps=[Step(id="ask", instructions="Ask which charge.")])],
        rules=[
            Rule(id="hours", condition_text="The customer asks when the support team is available",
                 action_text="Give the opening hours.",
                 examples=["Is anyone around on Sunday to help me?", "What time do your agents start work?"]),
            Rule(id="dispute_time", condition_text="How long does a dispute take?", action_text="30 to 60 days."),
            Rule(id="guard", condition_text="A refund is about to be issued", action_text="Only small refunds.",
                 is_hard_constraint=True, enforcement_expression="amount <= 50", guarded_tool_ids=["pay"]),
        ],
    )


def hits(minilm, message: str) -> dict:
    a, index = agent(), NumpyRuleIndex()
    sync_index(index, minilm, "t", a)
    session = Session(tenant_id="t", agent_id=a.id, session_id="s", customer_id="c")
    found = search_rules(a, index, turn_scope("t", a, session, []), centred(minilm, minilm.embed([message])[0]), 10)
    return {h.rule_id: h for h in found}


def test_every_key_is_a_document_and_a_guards_condition_is_none(minilm):
    ids = [d.rule_id for d in agent_documents(agent(), minilm) if d.kind == "rule"]
    # the guard's condition describes its call: neither it nor its action is a key
    assert ids == ["hours", "hours#action", "hours#0", "hours#1", "dispute_time", "dispute_time#action"]
    texts = {d.rule_id: d.text for d in agent_documents(agent(), minilm)}
    assert texts["hours#action"] == "The customer asks when the support team is available. Give the opening hours."


def test_a_message_in_the_words_of_the_rules_action_finds_it_through_its_condition_and_action(minilm):
    """A customer often names what the rule settles ("move me to the unlimited tariff": a plan change, which the
    action is about) in words its condition lacks: the condition-and-action key carries them."""
    a = AgentConfig(id="mobile", name="Mobile", rules=[
        Rule(id="plan_change", condition_text="I want to change my plan or switch to a different plan",
             action_text="Plan changes are done by a human agent; offer the transfer."),
        Rule(id="roaming", condition_text="Does roaming cost extra?", action_text="Roaming costs nothing.")])
    index, message = NumpyRuleIndex(), "Could I move to the unlimited tariff?"
    sync_index(index, minilm, "t", a)
    session = Session(tenant_id="t", agent_id=a.id, session_id="s", customer_id="c")
    query = centred(minilm, minilm.embed([message])[0])
    found = {h.rule_id: h for h in search_rules(a, index, turn_scope("t", a, session, []), query, 10)}
    condition = float(centred(minilm, minilm.embed([a.rule("plan_change").condition_text]))[0] @ query)
    assert condition < a.retrieval.rule_match_threshold  # the condition alone misses it
    assert found["plan_change"].score >= a.retrieval.rule_match_threshold > found["roaming"].score


def test_a_rule_is_found_through_its_examples_once_with_its_best_key(minilm):
    found = hits(minilm, "are your people working on Sundays?")
    assert list(found).count("hours") == 1 and not any("#" in rule_id for rule_id in found)
    a = agent()
    condition = float(centred(minilm, minilm.embed([a.rule("hours").condition_text]))[0]
                      @ centred(minilm, minilm.embed(["are your people working on Sundays?"]))[0])
    assert found["hours"].score > condition + 0.1  # the example says it the way customers do
    assert found["hours"].score >= a.retrieval.rule_match_threshold


def test_each_candidate_names_the_flow_that_competes_with_it(minilm):
    found = hits(minilm, "I want to dispute a charge")
    assert found["dispute_time"].flow_id == "dispute" and found["dispute_time"].flow_score > 0.9


def test_centring_keeps_unit_vectors_unrelated_texts_near_zero_and_paraphrases_close(minilm):
    assert calibration_id(minilm) == "centred-1"
    asks = ["Can I change my delivery address?", "How do I reset my password?", "Is the gym open on holidays?",
            "My card was declined at the store"]
    other = ["What is the weather like in Paris today?", "Can you recommend a good pasta recipe?",
             "Book me a table for two tonight", "Who won the football game yesterday?"]
    vectors = centred(minilm, minilm.embed(asks + other))
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert abs(float((vectors[:4] @ vectors[4:].T).mean())) < 0.1
    same = centred(minilm, minilm.embed(["How do I reset my password?", "I forgot my password, how can I change it?"]))
    assert float(same[0] @ same[1]) > 0.5


def test_an_embedder_without_a_background_mean_is_used_as_is():
    class Other:
        dimension = 3

        def embed(self, texts):
            return np.eye(3, dtype=np.float32)[: len(texts)]

    assert calibration_id(Other()) == "raw"
    assert np.array_equal(centred(Other(), np.eye(3, dtype=np.float32)), np.eye(3, dtype=np.float32))


def test_the_embedders_the_runtimes_wire_are_calibrated(tmp_path):
    """Local (cached on disk) and Lambda (loaded on first use) both name the model the background mean is for:
    a wrapper that hid the name would silently turn retrieval back to raw cosines."""
    from focal.adapters.lazy import LazyEmbedder
    from focal.wiring import local_deps

    assert calibration_id(LazyEmbedder()) == "centred-1"
    deps = local_deps(Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml", tmp_path / "f.db")
    assert calibration_id(deps.embedder) == "centred-1"
